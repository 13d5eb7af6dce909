package probe

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/internal/testserver"
)

func listen(t *testing.T) (net.Listener, int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, l.Addr().(*net.TCPAddr).Port
}

var loopback = netip.MustParseAddr("127.0.0.1")

func TestTCPSocketSuccess(t *testing.T) {
	l, port := listen(t)
	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			// The prober closes at once: the read ends with EOF (or a reset).
			_ = c.SetReadDeadline(time.Now().Add(waitTimeout))
			_, err = c.Read(make([]byte, 1))
			c.Close()
		}
		accepted <- err
	}()
	r, msg, err := TCPSocket(port).Probe(context.Background(), hook.Target{IP: loopback})
	if r != Success || msg != "" || err != nil {
		t.Fatalf("Probe = %v, %q, %v; want success", r, msg, err)
	}
	select {
	case err := <-accepted:
		if err == nil {
			t.Errorf("server read data from the probe's connection; want EOF")
		} else if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout") {
			t.Errorf("probe did not close its connection: %v", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("server accepted no connection")
	}
}

func TestTCPSocketWithHost(t *testing.T) {
	_, port := listen(t)
	// No target IP: the explicit host is used.
	r, msg, err := TCPSocket(port, WithHost("127.0.0.1")).Probe(context.Background(), hook.Target{})
	if r != Success || err != nil {
		t.Errorf("Probe = %v, %q, %v; want success", r, msg, err)
	}
}

func TestTCPSocketRefused(t *testing.T) {
	port := testserver.ClosedPort(t)
	r, msg, err := TCPSocket(port).Probe(context.Background(), hook.Target{IP: loopback})
	if r != Failure || err != nil || !strings.Contains(msg, "connection refused") {
		t.Errorf("Probe = %v, %q, %v; want failure, connection refused", r, msg, err)
	}
}

func TestTCPSocketNoIP(t *testing.T) {
	r, _, err := TCPSocket(80).Probe(context.Background(), hook.Target{})
	if r != Unknown || !errors.Is(err, hook.ErrNoIP) {
		t.Errorf("Probe = %v, %v; want unknown, ErrNoIP", r, err)
	}
}

func TestTCPSocketCancelled(t *testing.T) {
	_, port := listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, _, err := TCPSocket(port).Probe(ctx, hook.Target{IP: loopback})
	if r != Unknown || !errors.Is(err, context.Canceled) {
		t.Errorf("Probe = %v, %v; want unknown, context.Canceled", r, err)
	}
}

func TestTCPSocketInvalidPort(t *testing.T) {
	r, _, err := TCPSocket(0).Probe(context.Background(), hook.Target{IP: loopback})
	var fe *FieldError
	if r != Unknown || !errors.As(err, &fe) || fe.Field != "tcpSocket.port" {
		t.Errorf("Probe = %v, %v; want unknown, tcpSocket.port error", r, err)
	}
}

func TestTCPSocketDeadline(t *testing.T) {
	_, port := listen(t)
	// A deadline that has passed is a timeout: Failure, not a prober error.
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	r, msg, err := TCPSocket(port).Probe(ctx, hook.Target{IP: loopback})
	if r != Failure || err != nil || msg == "" {
		t.Errorf("Probe = %v, %q, %v; want failure with a message", r, msg, err)
	}
}
