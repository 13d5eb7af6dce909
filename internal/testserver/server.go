// Package testserver provides the HTTP test servers and network fixtures
// that the tests of packages httpget, hook and probe share.
//
// It is for tests only and imports nothing of this repository; no non-test code may import it.
package testserver

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
)

// Server is an [httptest.Server] that records the requests it handles.
type Server struct {
	*httptest.Server
	rec *recorder
}

// New starts a plain HTTP server on the loopback interface that records each
// request and then hands it to next, if next is not nil; otherwise it answers
// 200 OK with an empty body. The server is closed when the test ends.
func New(t testing.TB, next http.HandlerFunc) *Server {
	t.Helper()
	return start(t, httptest.NewServer, next)
}

// NewTLS is like [New], but the server speaks HTTPS with a self-signed
// certificate.
func NewTLS(t testing.TB, next http.HandlerFunc) *Server {
	t.Helper()
	return start(t, httptest.NewTLSServer, next)
}

// start starts a recording server with newServer and closes it when the test
// ends. Closing first drops the connections, so that handlers such as [Hang]
// that still wait for their client return.
func start(t testing.TB, newServer func(http.Handler) *httptest.Server, next http.HandlerFunc) *Server {
	rec := &recorder{next: next}
	s := &Server{Server: newServer(rec), rec: rec}
	t.Cleanup(func() {
		s.CloseClientConnections()
		s.Close()
	})
	return s
}

// Requests returns copies of the requests the server has handled so far, in
// the order they arrived.
func (s *Server) Requests() []*http.Request { return s.rec.requests() }

// AddrPort returns the IP address and port the server listens on.
func (s *Server) AddrPort() (netip.Addr, int) {
	ap := netip.MustParseAddrPort(s.Listener.Addr().String())
	return ap.Addr(), int(ap.Port())
}

// Hang returns a handler that answers nothing more until the client gives up
// (which ends the request's context) or the server is closed, to test
// timeouts. If written is not empty, the handler first sends it as the
// beginning of a 200 OK body.
func Hang(written string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if written != "" {
			_, _ = io.WriteString(w, written)
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}
}

// ClosedPort returns a loopback TCP port on which nothing listens (nothing
// did a moment ago).
func ClosedPort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

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
