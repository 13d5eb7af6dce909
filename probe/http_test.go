package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
)

// recorder is an http.Handler that records the requests it sees.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
	next http.HandlerFunc
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, r.Clone(context.Background()))
	rec.mu.Unlock()
	if rec.next != nil {
		rec.next(w, r)
	}
}

func (rec *recorder) requests() []*http.Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]*http.Request(nil), rec.reqs...)
}

func newServer(t *testing.T, next http.HandlerFunc) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{next: next}
	s := httptest.NewServer(rec)
	t.Cleanup(s.Close)
	return s, rec
}

func addrOf(t *testing.T, s *httptest.Server) (netip.Addr, int) {
	t.Helper()
	ap, err := netip.ParseAddrPort(s.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return ap.Addr(), int(ap.Port())
}

func TestHTTPGetResults(t *testing.T) {
	other, otherRec := newServer(t, nil)
	_, otherPort := addrOf(t, other)
	big := strings.Repeat("z", 3*hook.MaxOutputBytes)

	s, rec := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case strings.HasPrefix(p, "/status/"):
			var code int
			fmt.Sscan(strings.TrimPrefix(p, "/status/"), &code)
			w.WriteHeader(code)
			io.WriteString(w, "secret body")
		case p == "/same":
			http.Redirect(w, r, "/status/200", http.StatusFound)
		case p == "/same-to-fail":
			http.Redirect(w, r, "/status/500", http.StatusTemporaryRedirect)
		case p == "/other":
			w.Header().Set("Location", fmt.Sprintf("http://localhost:%d/status/200", otherPort))
			w.WriteHeader(http.StatusFound)
			io.WriteString(w, "moved away")
		case p == "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case p == "/big":
			io.WriteString(w, big)
		}
	})
	ip, port := addrOf(t, s)
	tests := []struct {
		path      string
		want      Result
		wantMsg   string
		wantPaths int // requests the server saw
	}{
		{"/status/200", Success, "secret body", 1},
		{"/status/204", Success, "", 1},
		{"/status/399", Warning, "Probe terminated redirects, Response body: secret body", 1},
		{"/status/304", Warning, "Probe terminated redirects, Response body: ", 1},
		{"/status/400", Failure, "HTTP probe failed with statuscode: 400", 1},
		{"/status/404", Failure, "HTTP probe failed with statuscode: 404", 1},
		{"/status/500", Failure, "HTTP probe failed with statuscode: 500", 1},
		{"/status/503", Failure, "HTTP probe failed with statuscode: 503", 1},
		{"/same", Success, "secret body", 2},
		{"/same-to-fail", Failure, "HTTP probe failed with statuscode: 500", 2},
		{"/other", Warning, "Probe terminated redirects, Response body: moved away", 1},
		{"/big", Success, big[:hook.MaxOutputBytes], 1},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			before := len(rec.requests())
			r, msg, err := HTTPGet(port, tt.path).Probe(context.Background(), hook.Target{IP: ip})
			if r != tt.want || msg != tt.wantMsg || err != nil {
				t.Errorf("Probe = %v, %.60q (len %d), %v; want %v, %.60q (len %d)", r, msg, len(msg), err, tt.want, tt.wantMsg, len(tt.wantMsg))
			}
			if n := len(rec.requests()) - before; n != tt.wantPaths {
				t.Errorf("server saw %d requests, want %d", n, tt.wantPaths)
			}
		})
	}
	t.Run("/loop", func(t *testing.T) {
		before := len(rec.requests())
		r, msg, err := HTTPGet(port, "/loop").Probe(context.Background(), hook.Target{IP: ip})
		if r != Failure || err != nil || !strings.Contains(msg, "stopped after 10 redirects") {
			t.Errorf("Probe = %v, %q, %v; want failure after 10 redirects", r, msg, err)
		}
		if n := len(rec.requests()) - before; n != 10 {
			t.Errorf("server saw %d requests, want 10", n)
		}
	})
	if n := len(otherRec.requests()); n != 0 {
		t.Errorf("the other host saw %d requests, want 0", n)
	}
}

func TestHTTPGetRequest(t *testing.T) {
	tests := []struct {
		name       string
		path       string
		opts       []HTTPOption
		wantURI    string
		wantHost   string // "" means the server's own address
		wantHeader map[string][]string
	}{
		{name: "defaults", wantURI: "/",
			wantHeader: map[string][]string{"User-Agent": {probeUserAgent}, "Accept": {"*/*"}, "Accept-Encoding": nil}},
		{name: "path and query", path: "/ready?verbose=1", wantURI: "/ready?verbose=1"},
		{name: "custom headers", path: "/", wantURI: "/",
			opts:       []HTTPOption{WithHeader("x-probe", "a"), WithHeader("X-Probe", "b"), WithHeader("User-Agent", "mine"), WithHeader("Accept", "application/json")},
			wantHeader: map[string][]string{"X-Probe": {"a", "b"}, "User-Agent": {"mine"}, "Accept": {"application/json"}}},
		{name: "empty Accept removes it", path: "/", wantURI: "/",
			opts:       []HTTPOption{WithHeader("Accept", "")},
			wantHeader: map[string][]string{"Accept": nil, "User-Agent": {probeUserAgent}}},
		{name: "Host override", path: "/", wantURI: "/", wantHost: "svc.example",
			opts: []HTTPOption{WithHeader("Host", "svc.example")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, rec := newServer(t, nil)
			ip, port := addrOf(t, s)
			r, _, err := HTTPGet(port, tt.path, tt.opts...).Probe(context.Background(), hook.Target{IP: ip})
			if r != Success || err != nil {
				t.Fatalf("Probe = %v, %v", r, err)
			}
			reqs := rec.requests()
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(reqs))
			}
			req := reqs[0]
			if req.Method != http.MethodGet || req.RequestURI != tt.wantURI {
				t.Errorf("request %s %s, want GET %s", req.Method, req.RequestURI, tt.wantURI)
			}
			wantHost := tt.wantHost
			if wantHost == "" {
				wantHost = s.Listener.Addr().String()
			}
			if req.Host != wantHost {
				t.Errorf("Host = %q, want %q", req.Host, wantHost)
			}
			if !req.Close {
				t.Errorf("request did not ask to close the connection (keep-alive must be off)")
			}
			for k, want := range tt.wantHeader {
				if got := req.Header.Values(k); strings.Join(got, "|") != strings.Join(want, "|") || (want == nil && got != nil) {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
		})
	}
	if !strings.HasPrefix(probeUserAgent, "podlife-probe/") {
		t.Errorf("default User-Agent %q", probeUserAgent)
	}
}

func TestHTTPGetWithHost(t *testing.T) {
	s, rec := newServer(t, nil)
	_, port := addrOf(t, s)
	r, _, err := HTTPGet(port, "/", WithHost("127.0.0.1")).Probe(context.Background(), hook.Target{})
	if r != Success || err != nil || len(rec.requests()) != 1 {
		t.Errorf("Probe = %v, %v; server saw %d requests", r, err, len(rec.requests()))
	}
}

func TestHTTPGetHTTPS(t *testing.T) {
	rec := &recorder{}
	s := httptest.NewTLSServer(rec) // self-signed: must not be verified
	t.Cleanup(s.Close)
	ip, port := addrOf(t, s)
	r, msg, err := HTTPGet(port, "/tls", WithScheme("https")).Probe(context.Background(), hook.Target{IP: ip})
	if r != Success || err != nil {
		t.Fatalf("Probe = %v, %q, %v", r, msg, err)
	}
	if reqs := rec.requests(); len(reqs) != 1 || reqs[0].TLS == nil {
		t.Errorf("server saw %d requests, want 1 over TLS", len(reqs))
	}
}

func TestHTTPGetHTTPSToPlainServerFails(t *testing.T) {
	// Probes have no HTTP fallback (only lifecycle hooks do).
	s, rec := newServer(t, nil)
	ip, port := addrOf(t, s)
	r, msg, err := HTTPGet(port, "/", WithScheme("HTTPS")).Probe(context.Background(), hook.Target{IP: ip})
	if r != Failure || err != nil || !strings.Contains(msg, "server gave HTTP response to HTTPS client") {
		t.Errorf("Probe = %v, %q, %v", r, msg, err)
	}
	if n := len(rec.requests()); n != 0 {
		t.Errorf("server handled %d requests, want 0", n)
	}
}

func TestHTTPGetTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	ip, port := addrOf(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	r, msg, err := HTTPGet(port, "/slow").Probe(ctx, hook.Target{IP: ip})
	if r != Failure || err != nil || !strings.Contains(msg, "deadline exceeded") {
		t.Errorf("Probe = %v, %q, %v; want failure, deadline exceeded", r, msg, err)
	}
	if d := time.Since(start); d > waitTimeout {
		t.Errorf("Probe took %v", d)
	}
}

func TestHTTPGetTimeoutDuringBody(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	ip, port := addrOf(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	r, msg, err := HTTPGet(port, "/").Probe(ctx, hook.Target{IP: ip})
	if r != Failure || err != nil || msg == "" {
		t.Errorf("Probe = %v, %q, %v; want failure", r, msg, err)
	}
}

func TestHTTPGetCancelled(t *testing.T) {
	s, _ := newServer(t, nil)
	ip, port := addrOf(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, _, err := HTTPGet(port, "/").Probe(ctx, hook.Target{IP: ip})
	if r != Unknown || !errors.Is(err, context.Canceled) {
		t.Errorf("Probe = %v, %v; want unknown, context.Canceled", r, err)
	}
}

func TestHTTPGetRefused(t *testing.T) {
	port := closedPort(t)
	r, msg, err := HTTPGet(port, "/x").Probe(context.Background(), hook.Target{IP: loopback})
	want := fmt.Sprintf(`Get "http://127.0.0.1:%d/x": dial tcp 127.0.0.1:%d: connect: connection refused`, port, port)
	if r != Failure || err != nil || msg != want {
		t.Errorf("Probe = %v, %q, %v; want failure, %q", r, msg, err, want)
	}
}

func TestHTTPGetNoIP(t *testing.T) {
	r, _, err := HTTPGet(80, "/").Probe(context.Background(), hook.Target{})
	if r != Unknown || !errors.Is(err, hook.ErrNoIP) {
		t.Errorf("Probe = %v, %v; want unknown, ErrNoIP", r, err)
	}
}

func TestHTTPGetInvalid(t *testing.T) {
	for _, p := range []Prober{HTTPGet(0, "/"), HTTPGet(80, "/", WithScheme("gopher"))} {
		r, _, err := p.Probe(context.Background(), hook.Target{IP: loopback})
		var fe *FieldError
		if r != Unknown || !errors.As(err, &fe) {
			t.Errorf("%s: Probe = %v, %v; want unknown, *FieldError", Describe(p), r, err)
		}
	}
}
