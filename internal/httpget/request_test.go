package httpget_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/podlife/podlife/internal/httpget"
	"github.com/podlife/podlife/internal/testserver"
)

func TestNewSpec(t *testing.T) {
	s := httpget.NewSpec(8080, "")
	if s.Scheme != "http" || s.Path != "/" || s.Port != 8080 || s.Host != "" || s.Header != nil {
		t.Errorf("NewSpec(8080, \"\") = %+v", s)
	}
	s.SetScheme("HTTPS")
	if s.Scheme != "https" {
		t.Errorf("SetScheme(HTTPS): Scheme = %q", s.Scheme)
	}
	s.SetScheme("")
	if s.Scheme != "http" {
		t.Errorf("SetScheme(\"\"): Scheme = %q", s.Scheme)
	}
	s.AddHeader("x-a", "1")
	s.AddHeader("X-A", "2")
	if got := s.Header.Values("X-A"); len(got) != 2 {
		t.Errorf("AddHeader twice: %v", s.Header)
	}
}

func TestURL(t *testing.T) {
	tests := []struct {
		scheme, host string
		port         int
		path         string
		want         string
	}{
		{"http", "10.0.0.1", 8080, "/healthz", "http://10.0.0.1:8080/healthz"},
		{"https", "example.com", 443, "/a/b?x=1&y=2", "https://example.com:443/a/b?x=1&y=2"},
		{"http", "10.0.0.1", 80, "healthz", "http://10.0.0.1:80/healthz"},
		{"http", "::1", 80, "/", "http://[::1]:80/"},
		{"http", "", 8080, "/x", "http://:8080/x"},
		{"http", "h", 80, "%zz", "http://h:80/%25zz"}, // does not parse: verbatim path
	}
	for _, tt := range tests {
		s := httpget.Spec{Scheme: tt.scheme, Port: tt.port, Path: tt.path}
		if got := s.URL(tt.host).String(); got != tt.want {
			t.Errorf("URL(%q, %q, %d, %q) = %q, want %q", tt.scheme, tt.host, tt.port, tt.path, got, tt.want)
		}
	}
}

// TestRequestHeaders checks the request as the server receives it, after the
// client of NewClient has sent it.
func TestRequestHeaders(t *testing.T) {
	const ua = "podlife-test/1.2"
	header := func(kv ...string) http.Header {
		var s httpget.Spec
		for i := 0; i < len(kv); i += 2 {
			s.AddHeader(kv[i], kv[i+1])
		}
		return s.Header
	}
	tests := []struct {
		name       string
		path       string
		header     http.Header
		wantURI    string
		wantHost   string // "" means the server's own address
		wantHeader map[string][]string
	}{
		{name: "defaults", path: "/", header: nil, wantURI: "/",
			wantHeader: map[string][]string{"User-Agent": {ua}, "Accept": {"*/*"}, "Accept-Encoding": nil}},
		{name: "path and query", path: "/a/b?x=1&y=2", wantURI: "/a/b?x=1&y=2"},
		{name: "path without slash", path: "healthz", wantURI: "/healthz"},
		{name: "custom headers", path: "/", wantURI: "/",
			header:     header("x-custom", "1", "X-Custom", "2", "User-Agent", "mine", "Accept", "text/plain"),
			wantHeader: map[string][]string{"X-Custom": {"1", "2"}, "User-Agent": {"mine"}, "Accept": {"text/plain"}}},
		{name: "empty Accept removes it", path: "/", wantURI: "/",
			header:     header("Accept", ""),
			wantHeader: map[string][]string{"Accept": nil, "User-Agent": {ua}}},
		{name: "empty User-Agent removes it", path: "/", wantURI: "/",
			header:     header("User-Agent", ""),
			wantHeader: map[string][]string{"User-Agent": nil, "Accept": {"*/*"}}},
		{name: "Host header", path: "/", wantURI: "/", wantHost: "app.example:1234",
			header: header("Host", "app.example:1234")},
	}
	client := newClient()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testserver.New(t, nil)
			ip, port := s.AddrPort()
			spec := httpget.NewSpec(port, tt.path)
			spec.Header = tt.header
			req, err := spec.NewRequest(context.Background(), ip.String(), ua)
			if err != nil {
				t.Fatal(err)
			}
			get(t, client, req)
			reqs := s.Requests()
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != http.MethodGet || r.RequestURI != tt.wantURI {
				t.Errorf("request %s %s, want GET %s", r.Method, r.RequestURI, tt.wantURI)
			}
			wantHost := tt.wantHost
			if wantHost == "" {
				wantHost = s.Listener.Addr().String()
			}
			if r.Host != wantHost {
				t.Errorf("Host = %q, want %q", r.Host, wantHost)
			}
			if !r.Close {
				t.Errorf("request did not ask to close the connection (keep-alive must be off)")
			}
			for k, want := range tt.wantHeader {
				if got := r.Header.Values(k); strings.Join(got, "|") != strings.Join(want, "|") || (want == nil && got != nil) {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

func TestNewRequestDoesNotChangeSpec(t *testing.T) {
	s := httpget.NewSpec(80, "/")
	s.AddHeader("X-A", "1")
	req, err := s.NewRequest(context.Background(), "h", "ua")
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Add("X-A", "2")
	if len(s.Header) != 1 || len(s.Header["X-A"]) != 1 {
		t.Errorf("the spec's header changed to %v", s.Header)
	}
}

func TestNewRequestHost(t *testing.T) {
	s := httpget.NewSpec(80, "/x")
	s.Host = "spec.example"
	for host, want := range map[string]string{"10.0.0.1": "http://10.0.0.1:80/x", "spec.example": "http://spec.example:80/x"} {
		req, err := s.NewRequest(context.Background(), host, "ua")
		if err != nil || req.URL.String() != want {
			t.Errorf("NewRequest(%q) = %v, %v; want %s", host, req.URL, err, want)
		}
	}
	if got, want := s.String(), "http://spec.example:80/x"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func TestNewRequestBadHost(t *testing.T) {
	s := httpget.NewSpec(80, "/")
	_, err := s.NewRequest(context.Background(), "a b", "ua")
	if err == nil || !strings.HasPrefix(err.Error(), `parse "http://a%20b:80/"`) {
		t.Errorf("NewRequest = %v, want a parse error", err)
	}
}
