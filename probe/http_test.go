package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/internal/testserver"
)

// The request itself (headers, redirects, body cap, TLS, timeouts) is tested
// in package httpget; these tests cover the results the prober makes of it.

func TestHTTPGetResults(t *testing.T) {
	other := testserver.New(t, nil)
	_, otherPort := other.AddrPort()
	big := strings.Repeat("z", 3*hook.MaxOutputBytes)

	s := testserver.New(t, func(w http.ResponseWriter, r *http.Request) {
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
	ip, port := s.AddrPort()
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
			before := len(s.Requests())
			r, msg, err := HTTPGet(port, tt.path).Probe(context.Background(), hook.Target{IP: ip})
			if r != tt.want || msg != tt.wantMsg || err != nil {
				t.Errorf("Probe = %v, %.60q (len %d), %v; want %v, %.60q (len %d)", r, msg, len(msg), err, tt.want, tt.wantMsg, len(tt.wantMsg))
			}
			if n := len(s.Requests()) - before; n != tt.wantPaths {
				t.Errorf("server saw %d requests, want %d", n, tt.wantPaths)
			}
		})
	}
	t.Run("/loop", func(t *testing.T) {
		before := len(s.Requests())
		r, msg, err := HTTPGet(port, "/loop").Probe(context.Background(), hook.Target{IP: ip})
		if r != Failure || err != nil || !strings.Contains(msg, "stopped after 10 redirects") {
			t.Errorf("Probe = %v, %q, %v; want failure after 10 redirects", r, msg, err)
		}
		if n := len(s.Requests()) - before; n != 10 {
			t.Errorf("server saw %d requests, want 10", n)
		}
	})
	if n := len(other.Requests()); n != 0 {
		t.Errorf("the other host saw %d requests, want 0", n)
	}
}

func TestHTTPGetWithHost(t *testing.T) {
	s := testserver.New(t, nil)
	_, port := s.AddrPort()
	r, _, err := HTTPGet(port, "/", WithHost("127.0.0.1")).Probe(context.Background(), hook.Target{})
	reqs := s.Requests()
	if r != Success || err != nil || len(reqs) != 1 {
		t.Fatalf("Probe = %v, %v; server saw %d requests", r, err, len(reqs))
	}
	if ua := reqs[0].UserAgent(); ua != probeUserAgent || !strings.HasPrefix(ua, "podlife-probe/") {
		t.Errorf("User-Agent %q, want the default %q", ua, probeUserAgent)
	}
}

func TestHTTPGetHTTPSToPlainServerFails(t *testing.T) {
	// Probes have no HTTP fallback (only lifecycle hooks do).
	s := testserver.New(t, nil)
	ip, port := s.AddrPort()
	r, msg, err := HTTPGet(port, "/", WithScheme("HTTPS")).Probe(context.Background(), hook.Target{IP: ip})
	if r != Failure || err != nil || !strings.Contains(msg, "server gave HTTP response to HTTPS client") {
		t.Errorf("Probe = %v, %q, %v", r, msg, err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("server handled %d requests, want 0", n)
	}
}

func TestHTTPGetTimeout(t *testing.T) {
	// The deadline is a Failure before the answer and during the body.
	for _, written := range []string{"", "partial body"} {
		s := testserver.New(t, testserver.Hang(written))
		ip, port := s.AddrPort()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		r, msg, err := HTTPGet(port, "/slow").Probe(ctx, hook.Target{IP: ip})
		cancel()
		if r != Failure || err != nil || !strings.Contains(msg, "deadline exceeded") {
			t.Errorf("after %q: Probe = %v, %q, %v; want failure, deadline exceeded", written, r, msg, err)
		}
	}
}

func TestHTTPGetCancelled(t *testing.T) {
	s := testserver.New(t, nil)
	ip, port := s.AddrPort()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, _, err := HTTPGet(port, "/").Probe(ctx, hook.Target{IP: ip})
	if r != Unknown || !errors.Is(err, context.Canceled) {
		t.Errorf("Probe = %v, %v; want unknown, context.Canceled", r, err)
	}
}

func TestHTTPGetRefused(t *testing.T) {
	port := testserver.ClosedPort(t)
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
