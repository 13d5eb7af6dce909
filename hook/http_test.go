package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/httpget"
	"github.com/podlife/podlife/internal/testserver"
)

// The request itself (headers, redirects, body cap, TLS, timeouts) is tested
// in package httpget; these tests cover what the handler makes of it.

func TestHTTPGetStatusNotChecked(t *testing.T) {
	for _, code := range []int{200, 204, 301, 404, 500, 503} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			s := testserver.New(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(code)
				_, _ = io.WriteString(w, "body")
			})
			ip, port := s.AddrPort()
			if err := HTTPGet(port, "/hook").Run(context.Background(), Target{IP: ip}); err != nil {
				t.Fatalf("Run = %v, want nil for status %d", err, code)
			}
			if n := len(s.Requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
	}
}

func TestHTTPGetRequest(t *testing.T) {
	s := testserver.New(t, nil)
	_, port := s.AddrPort()
	// No target IP: the explicit host is used.
	if err := HTTPGet(port, "", WithHost("127.0.0.1")).Run(context.Background(), Target{}); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].RequestURI != "/" || reqs[0].UserAgent() != lifecycleUserAgent {
		t.Errorf("server saw %d requests, want 1 for / with the default User-Agent", len(reqs))
	}
	if !strings.HasPrefix(lifecycleUserAgent, "podlife-lifecycle/") {
		t.Errorf("default User-Agent %q", lifecycleUserAgent)
	}
}

func TestHTTPGetNoIP(t *testing.T) {
	err := HTTPGet(80, "/").Run(context.Background(), Target{Pod: "p"})
	if !errors.Is(err, ErrNoIP) {
		t.Fatalf("Run = %v, want ErrNoIP", err)
	}
}

func TestHTTPGetRedirects(t *testing.T) {
	other := testserver.New(t, nil)
	_, otherPort := other.AddrPort()
	s := testserver.New(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/other":
			http.Redirect(w, r, fmt.Sprintf("http://localhost:%d/elsewhere", otherPort), http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		}
	})
	ip, port := s.AddrPort()
	// A redirect to another host is not followed, and that is success.
	if err := HTTPGet(port, "/other").Run(context.Background(), Target{IP: ip}); err != nil {
		t.Errorf("redirect to another host: Run = %v, want nil", err)
	}
	if n := len(other.Requests()); n != 0 {
		t.Errorf("the other host saw %d requests, want 0", n)
	}
	// Too many redirects fail the handler.
	err := HTTPGet(port, "/loop").Run(context.Background(), Target{IP: ip})
	var he *Error
	if !errors.As(err, &he) || !errors.Is(err, httpget.ErrTooManyRedirects) {
		t.Errorf("redirect loop: Run = %v, want an *Error for too many redirects", err)
	}
}

func TestHTTPGetHTTPS(t *testing.T) {
	s := testserver.NewTLS(t, nil)
	ip, port := s.AddrPort()
	var warnings []string
	tgt := Target{IP: ip, Warn: func(reason, msg string) { warnings = append(warnings, reason) }}
	if err := HTTPGet(port, "/tls", WithScheme("HTTPS")).Run(context.Background(), tgt); err != nil {
		t.Fatal(err)
	}
	if reqs := s.Requests(); len(reqs) != 1 || reqs[0].TLS == nil {
		t.Fatalf("server saw %d requests, want 1 over TLS", len(reqs))
	}
	if len(warnings) != 0 {
		t.Errorf("warnings %q, want none", warnings)
	}
}

func TestHTTPGetHTTPSFallback(t *testing.T) {
	s := testserver.New(t, nil) // plain HTTP
	ip, port := s.AddrPort()
	type warning struct{ reason, msg string }
	var warnings []warning
	tgt := Target{IP: ip, Warn: func(reason, msg string) { warnings = append(warnings, warning{reason, msg}) }}
	h := HTTPGet(port, "/fb", WithScheme("HTTPS"), WithHeader("Authorization", "Bearer secret"), WithHeader("X-Keep", "yes"))
	if err := h.Run(context.Background(), tgt); err != nil {
		t.Fatalf("Run = %v, want nil after the HTTP fallback", err)
	}
	reqs := s.Requests()
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
	port := testserver.ClosedPort(t)
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

func TestHTTPGetContextGovernsTimeout(t *testing.T) {
	run := func(written string) error {
		s := testserver.New(t, testserver.Hang(written))
		ip, port := s.AddrPort()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		return HTTPGet(port, "/slow").Run(ctx, Target{IP: ip})
	}
	if err := run(""); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("no answer: Run = %v, want DeadlineExceeded", err)
	}
	// The body is not checked, even if it is cut short.
	if err := run("partial body"); err != nil {
		t.Errorf("body cut short: Run = %v, want nil", err)
	}
}
