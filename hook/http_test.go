package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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

func TestHTTPGetStatusNotChecked(t *testing.T) {
	for _, code := range []int{200, 204, 301, 404, 500, 503} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			s, rec := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(code)
				_, _ = io.WriteString(w, "body")
			})
			ip, port := addrOf(t, s)
			if err := HTTPGet(port, "/hook").Run(context.Background(), Target{IP: ip}); err != nil {
				t.Fatalf("Run = %v, want nil for status %d", err, code)
			}
			if n := len(rec.requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
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
		{name: "defaults", path: "", wantURI: "/",
			wantHeader: map[string][]string{"User-Agent": {lifecycleUserAgent}, "Accept": {"*/*"}, "Accept-Encoding": nil}},
		{name: "path and query", path: "/a/b?x=1&y=2", wantURI: "/a/b?x=1&y=2"},
		{name: "path without slash", path: "healthz", wantURI: "/healthz"},
		{name: "custom headers", path: "/", wantURI: "/",
			opts:       []HTTPOption{WithHeader("x-custom", "1"), WithHeader("X-Custom", "2"), WithHeader("User-Agent", "mine"), WithHeader("Accept", "text/plain")},
			wantHeader: map[string][]string{"X-Custom": {"1", "2"}, "User-Agent": {"mine"}, "Accept": {"text/plain"}}},
		{name: "empty Accept removes it", path: "/", wantURI: "/",
			opts:       []HTTPOption{WithHeader("Accept", "")},
			wantHeader: map[string][]string{"Accept": nil}},
		{name: "empty User-Agent removes it", path: "/", wantURI: "/",
			opts:       []HTTPOption{WithHeader("User-Agent", "")},
			wantHeader: map[string][]string{"User-Agent": nil}},
		{name: "Host override", path: "/", wantURI: "/", wantHost: "app.example:1234",
			opts: []HTTPOption{WithHeader("Host", "app.example:1234")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, rec := newServer(t, nil)
			ip, port := addrOf(t, s)
			if err := HTTPGet(port, tt.path, tt.opts...).Run(context.Background(), Target{IP: ip}); err != nil {
				t.Fatal(err)
			}
			reqs := rec.requests()
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
			for k, want := range tt.wantHeader {
				if got := r.Header.Values(k); strings.Join(got, "|") != strings.Join(want, "|") || (want == nil && got != nil) {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
			if !strings.HasPrefix(lifecycleUserAgent, "podlife-lifecycle/") {
				t.Errorf("default User-Agent %q", lifecycleUserAgent)
			}
		})
	}
}

func TestHTTPGetWithHost(t *testing.T) {
	s, rec := newServer(t, nil)
	_, port := addrOf(t, s)
	// No target IP: the explicit host is used.
	if err := HTTPGet(port, "/", WithHost("127.0.0.1")).Run(context.Background(), Target{}); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestHTTPGetNoIP(t *testing.T) {
	err := HTTPGet(80, "/").Run(context.Background(), Target{Pod: "p"})
	if !errors.Is(err, ErrNoIP) {
		t.Fatalf("Run = %v, want ErrNoIP", err)
	}
}

func TestHTTPGetRedirects(t *testing.T) {
	// other counts the requests that reach the "other host" (localhost
	// instead of 127.0.0.1): none must.
	other, otherRec := newServer(t, nil)
	_, otherPort := addrOf(t, other)

	var s *httptest.Server
	s, rec := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/same":
			http.Redirect(w, r, "/final", http.StatusFound)
		case r.URL.Path == "/abs":
			http.Redirect(w, r, s.URL+"/final", http.StatusMovedPermanently)
		case r.URL.Path == "/other":
			http.Redirect(w, r, fmt.Sprintf("http://localhost:%d/elsewhere", otherPort), http.StatusFound)
		case r.URL.Path == "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		}
	})
	ip, port := addrOf(t, s)
	tests := []struct {
		path      string
		wantPaths []string
		wantErr   string
	}{
		{"/same", []string{"/same", "/final"}, ""},
		{"/abs", []string{"/abs", "/final"}, ""},
		{"/other", []string{"/other"}, ""},
		{"/loop", []string{"/loop", "/loop", "/loop", "/loop", "/loop", "/loop", "/loop", "/loop", "/loop", "/loop"}, "stopped after 10 redirects"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			before := len(rec.requests())
			err := HTTPGet(port, tt.path).Run(context.Background(), Target{IP: ip})
			if tt.wantErr == "" && err != nil {
				t.Errorf("Run = %v, want nil", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Run = %v, want error containing %q", err, tt.wantErr)
			}
			var got []string
			for _, r := range rec.requests()[before:] {
				got = append(got, r.URL.Path)
			}
			if strings.Join(got, " ") != strings.Join(tt.wantPaths, " ") {
				t.Errorf("server saw %q, want %q", got, tt.wantPaths)
			}
		})
	}
	if n := len(otherRec.requests()); n != 0 {
		t.Errorf("the other host saw %d requests, want 0", n)
	}
}

func TestHTTPGetHTTPS(t *testing.T) {
	rec := &recorder{}
	s := httptest.NewTLSServer(rec) // self-signed: must not be verified
	t.Cleanup(s.Close)
	ip, port := addrOf(t, s)
	var warnings []string
	tgt := Target{IP: ip, Warn: func(reason, msg string) { warnings = append(warnings, reason) }}
	if err := HTTPGet(port, "/tls", WithScheme("HTTPS")).Run(context.Background(), tgt); err != nil {
		t.Fatal(err)
	}
	reqs := rec.requests()
	if len(reqs) != 1 || reqs[0].TLS == nil {
		t.Fatalf("server saw %d requests (TLS=%v), want 1 over TLS", len(reqs), len(reqs) == 1 && reqs[0].TLS != nil)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings %q, want none", warnings)
	}
}

func TestHTTPGetHTTPSFallback(t *testing.T) {
	s, rec := newServer(t, nil) // plain HTTP
	ip, port := addrOf(t, s)
	type warning struct{ reason, msg string }
	var warnings []warning
	tgt := Target{IP: ip, Warn: func(reason, msg string) { warnings = append(warnings, warning{reason, msg}) }}
	h := HTTPGet(port, "/fb", WithScheme("HTTPS"), WithHeader("Authorization", "Bearer secret"), WithHeader("X-Keep", "yes"))
	if err := h.Run(context.Background(), tgt); err != nil {
		t.Fatalf("Run = %v, want nil after the HTTP fallback", err)
	}
	reqs := rec.requests()
	if len(reqs) != 1 {
		t.Fatalf("server handled %d requests, want 1 (the HTTP retry)", len(reqs))
	}
	r := reqs[0]
	if r.TLS != nil || r.URL.Path != "/fb" {
		t.Errorf("retry: TLS=%v path=%q", r.TLS != nil, r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "" {
		t.Errorf("retry carried Authorization %q", got)
	}
	if got := r.Header.Get("X-Keep"); got != "yes" {
		t.Errorf("retry lost X-Keep: %q", got)
	}
	if len(warnings) != 1 || warnings[0].reason != ReasonLifecycleHTTPFallback ||
		warnings[0].msg != fmt.Sprintf("request to HTTPS lifecycle hook %s got HTTP response, retry with HTTP succeeded", s.Listener.Addr()) {
		t.Errorf("warnings = %q", warnings)
	}
	// Without a Warn function the fallback still works.
	if err := h.Run(context.Background(), Target{IP: ip}); err != nil {
		t.Errorf("Run without Warn = %v", err)
	}
}

func TestHTTPGetConnectionRefused(t *testing.T) {
	port := closedPort(t)
	var calls int
	tgt := Target{Pod: "web", Container: "app", IP: netip.MustParseAddr("127.0.0.1"), Warn: func(string, string) { calls++ }}
	err := HTTPGet(port, "/x").Run(context.Background(), tgt)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("Run = %v, want ECONNREFUSED", err)
	}
	var he *Error
	if !errors.As(err, &he) || he.Kind != "httpGet" || he.Handler != fmt.Sprintf("httpGet http://:%d/x", port) {
		t.Errorf("Error = %+v", he)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf(`lifecycle hook httpGet http://:%d/x for container "app" in pod "web" failed: Get "http://127.0.0.1:%d/x"`, port, port)) {
		t.Errorf("message = %q", err.Error())
	}
	if calls != 0 {
		t.Errorf("Warn called %d times", calls)
	}
}

// closedPort returns a loopback port on which nothing listens.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

func TestHTTPGetContextGovernsTimeout(t *testing.T) {
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
	err := HTTPGet(port, "/slow").Run(ctx, Target{IP: ip})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Run returned after %v", d)
	}
}

func TestHTTPGetNoDefaultTimeout(t *testing.T) {
	// A response slower than the probe default (1 s) still succeeds.
	s, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(1200 * time.Millisecond)
	})
	ip, port := addrOf(t, s)
	if err := HTTPGet(port, "/").Run(context.Background(), Target{IP: ip}); err != nil {
		t.Fatal(err)
	}
}

func TestHTTPGetBodyCapped(t *testing.T) {
	const total = 64 << 20
	written := make(chan int64, 1)
	s, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 64<<10)
		var n int64
		for n < total {
			m, err := w.Write(chunk)
			n += int64(m)
			if err != nil {
				break
			}
		}
		written <- n
	})
	ip, port := addrOf(t, s)
	if err := HTTPGet(port, "/big").Run(context.Background(), Target{IP: ip}); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-written:
		if n >= total {
			t.Errorf("server wrote the whole %d-byte body: the client read it all", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server handler did not finish")
	}
}
