package probe

import (
	"context"
	"net"
	"strconv"

	"github.com/podlife/podlife/hook"
)

// TCPSocket returns a prober that opens a TCP connection to the target's IP
// (or the host given by [WithHost]) and port. A connection is Success and is
// closed at once; an error (refused, unreachable, ctx's deadline) is Failure
// with the error text as the message. A Target without an IP when no host is
// given ([hook.ErrNoIP]) and a cancelled ctx are prober errors. The prober's
// TargetHost method returns the host given with [WithHost].
func TCPSocket(port int, opts ...TCPOption) Prober {
	p := &tcpSocket{port: port}
	for _, o := range opts {
		o.applyTCP(p)
	}
	return p
}

type tcpSocket struct {
	port int
	host string
}

func (p *tcpSocket) String() string {
	return "tcpSocket " + net.JoinHostPort(p.host, strconv.Itoa(p.port))
}

// TargetHost is the host given with [WithHost], or empty: the target's IP.
func (p *tcpSocket) TargetHost() string { return p.host }

func (p *tcpSocket) validate() []error {
	if err := validatePort("tcpSocket.port", p.port); err != nil {
		return []error{err}
	}
	return nil
}

func (p *tcpSocket) Probe(ctx context.Context, t hook.Target) (Result, string, error) {
	if err := firstError(p); err != nil {
		return Unknown, "", err
	}
	host, err := targetHost(p.host, t)
	if err != nil {
		return Unknown, "", err
	}
	conn, err := probeDialer().DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(p.port)))
	if err != nil {
		if cancelled(ctx) {
			return Unknown, "", err
		}
		return Failure, err.Error(), nil
	}
	_ = conn.Close()
	return Success, "", nil
}
