package httpget_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/httpget"
	"github.com/podlife/podlife/internal/testserver"
)

// newClient returns a client that dials plainly.
func newClient() *http.Client { return httpget.NewClient(&net.Dialer{}) }

// get sends req with c, reads the whole body and returns the response.
func get(t *testing.T, c *http.Client, req *http.Request) *http.Response {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := httpget.ReadBody(resp, 1<<20); err != nil {
		t.Fatal(err)
	}
	return resp
}

// request returns a GET request for path on s.
func request(t *testing.T, ctx context.Context, s *testserver.Server, scheme, path string) *http.Request {
	t.Helper()
	ip, port := s.AddrPort()
	spec := httpget.NewSpec(port, path)
	spec.SetScheme(scheme)
	req, err := spec.NewRequest(ctx, ip.String(), "ua")
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestNewClientSettings(t *testing.T) {
	c := newClient()
	if c.Timeout != 0 {
		t.Errorf("Timeout = %v, want none (the context bounds requests)", c.Timeout)
	}
	tr, ok := c.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("Transport is %T", c.Transport)
	}
	if tr.Proxy != nil || !tr.DisableKeepAlives || !tr.DisableCompression ||
		tr.TLSClientConfig == nil || !tr.TLSClientConfig.InsecureSkipVerify {
		t.Errorf("Transport: proxy set %v, keep-alive off %v, compression off %v, TLS %+v",
			tr.Proxy != nil, tr.DisableKeepAlives, tr.DisableCompression, tr.TLSClientConfig)
	}
}

func TestHTTPSNotVerified(t *testing.T) {
	s := testserver.NewTLS(t, nil) // self-signed
	resp := get(t, newClient(), request(t, context.Background(), s, "https", "/tls"))
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
	if reqs := s.Requests(); len(reqs) != 1 || reqs[0].TLS == nil {
		t.Errorf("server saw %d requests, want 1 over TLS", len(reqs))
	}
}

func TestRedirects(t *testing.T) {
	// other listens on another port; "localhost" is another host name for
	// the same address.
	other := testserver.New(t, nil)
	_, otherPort := other.AddrPort()
	var s *testserver.Server
	s = testserver.New(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/same":
			http.Redirect(w, r, "/final", http.StatusFound)
		case "/abs":
			http.Redirect(w, r, s.URL+"/final", http.StatusMovedPermanently)
		case "/other-port":
			http.Redirect(w, r, fmt.Sprintf("http://127.0.0.1:%d/there", otherPort), http.StatusFound)
		case "/other-host":
			w.Header().Set("Location", fmt.Sprintf("http://localhost:%d/elsewhere", otherPort))
			w.WriteHeader(http.StatusFound)
			_, _ = io.WriteString(w, "moved away")
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		}
	})
	loop := strings.Fields(strings.Repeat("/loop ", httpget.MaxRedirects))
	tests := []struct {
		path       string
		wantPaths  []string // on s
		wantOther  int      // requests to other
		wantStatus int
		wantBody   string
		wantErr    error
	}{
		{path: "/same", wantPaths: []string{"/same", "/final"}, wantStatus: http.StatusOK},
		{path: "/abs", wantPaths: []string{"/abs", "/final"}, wantStatus: http.StatusOK},
		{path: "/other-port", wantPaths: []string{"/other-port"}, wantOther: 1, wantStatus: http.StatusOK},
		{path: "/other-host", wantPaths: []string{"/other-host"}, wantStatus: http.StatusFound, wantBody: "moved away"},
		{path: "/loop", wantPaths: loop, wantErr: httpget.ErrTooManyRedirects},
	}
	c := newClient()
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			before, otherBefore := len(s.Requests()), len(other.Requests())
			resp, err := c.Do(request(t, context.Background(), s, "http", tt.path))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || err.Error() != fmt.Sprintf(`Get "/loop": %v`, tt.wantErr) {
					t.Errorf("Do = %v, want %v", err, tt.wantErr)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				body, err := httpget.ReadBody(resp, 1<<10)
				if err != nil || resp.StatusCode != tt.wantStatus || string(body) != tt.wantBody {
					t.Errorf("response %d %q, %v; want %d %q", resp.StatusCode, body, err, tt.wantStatus, tt.wantBody)
				}
			}
			var got []string
			for _, r := range s.Requests()[before:] {
				got = append(got, r.URL.Path)
			}
			if strings.Join(got, " ") != strings.Join(tt.wantPaths, " ") {
				t.Errorf("server saw %q, want %q", got, tt.wantPaths)
			}
			if n := len(other.Requests()) - otherBefore; n != tt.wantOther {
				t.Errorf("the other server saw %d requests, want %d", n, tt.wantOther)
			}
		})
	}
}

func TestReadBody(t *testing.T) {
	const limit = 10 << 10
	const total = 64 << 20
	written := make(chan int64, 1)
	s := testserver.New(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/short" {
			_, _ = io.WriteString(w, "short body")
			return
		}
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
	c := newClient()
	for path, want := range map[string]int{"/short": len("short body"), "/big": limit} {
		resp, err := c.Do(request(t, context.Background(), s, "http", path))
		if err != nil {
			t.Fatal(err)
		}
		body, err := httpget.ReadBody(resp, limit)
		if err != nil || len(body) != want {
			t.Errorf("%s: ReadBody read %d bytes, %v; want %d", path, len(body), err, want)
		}
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

func TestContextBoundsRequest(t *testing.T) {
	c := newClient()
	for _, written := range []string{"", "partial"} {
		t.Run(fmt.Sprintf("after %q", written), func(t *testing.T) {
			s := testserver.New(t, testserver.Hang(written))
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			resp, err := c.Do(request(t, ctx, s, "http", "/slow"))
			if err == nil {
				_, err = httpget.ReadBody(resp, 1<<10)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("request ended with %v, want DeadlineExceeded", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("request ended after %v", d)
			}
		})
	}
}
