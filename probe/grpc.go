package probe

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/podlife/podlife/hook"
)

// GRPC returns a prober that calls grpc.health.v1.Health/Check on the target's IP and port,
// with the given service name ("" asks about the server as a whole), without TLS, as the
// kubelet's grpc probe does. SERVING is Success; any other status, or an error (refused,
// unimplemented, ctx's deadline), is Failure with a message saying so. A Target without an IP
// ([hook.ErrNoIP]) and a cancelled ctx are prober errors.
func GRPC(port int, service string) Prober {
	return &grpcProbe{port: port, service: service}
}

type grpcProbe struct {
	port    int
	service string
}

func (p *grpcProbe) String() string {
	return fmt.Sprintf("grpc :%d %q", p.port, p.service)
}

func (p *grpcProbe) validate() []error {
	if err := validatePort("grpc.port", p.port); err != nil {
		return []error{err}
	}
	return nil
}

func (p *grpcProbe) Probe(ctx context.Context, t hook.Target) (Result, string, error) {
	if err := firstError(p); err != nil {
		return Unknown, "", err
	}
	host, err := targetHost("", t)
	if err != nil {
		return Unknown, "", err
	}
	addr := net.JoinHostPort(host, strconv.Itoa(p.port))
	conn, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUserAgent(probeUserAgent),
		grpc.WithContextDialer(func(ctx context.Context, a string) (net.Conn, error) {
			return probeDialer().DialContext(ctx, "tcp", a)
		}))
	if err != nil {
		return Unknown, "", fmt.Errorf("grpc probe: %w", err)
	}
	defer conn.Close()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: p.service})
	if err != nil {
		if cancelled(ctx) {
			return Unknown, "", err
		}
		return Failure, fmt.Sprintf("grpc health check of %s failed: %v", addr, err), nil
	}
	if s := resp.GetStatus(); s != healthpb.HealthCheckResponse_SERVING {
		return Failure, fmt.Sprintf("service unhealthy (responded with %q)", s), nil
	}
	return Success, "", nil
}
