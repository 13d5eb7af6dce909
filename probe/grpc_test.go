package probe_test

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/probe"
)

// The gRPC prober against a real grpc.health.v1 server on 127.0.0.1.
func TestGRPC(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus("db", healthpb.HealthCheckResponse_NOT_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	go srv.Serve(l)
	defer srv.Stop()
	port := l.Addr().(*net.TCPAddr).Port
	target := hook.Target{IP: netip.MustParseAddr("127.0.0.1")}

	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedPort := closed.Addr().(*net.TCPAddr).Port
	closed.Close()

	for _, tc := range []struct {
		name    string
		prober  probe.Prober
		want    probe.Result
		message string
	}{
		{"serving", probe.GRPC(port, ""), probe.Success, ""},
		{"not serving", probe.GRPC(port, "db"), probe.Failure, `service unhealthy (responded with "NOT_SERVING")`},
		{"unknown service", probe.GRPC(port, "nope"), probe.Failure, "NotFound"},
		{"refused", probe.GRPC(closedPort, ""), probe.Failure, "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			r, msg, err := tc.prober.Probe(ctx, target)
			if err != nil || r != tc.want || !strings.Contains(msg, tc.message) {
				t.Errorf("Probe = %v, %q, %v; want %v with %q", r, msg, err, tc.want, tc.message)
			}
		})
	}
	if _, _, err := probe.GRPC(port, "").Probe(context.Background(), hook.Target{}); err == nil {
		t.Error("no IP: want a prober error")
	}
}
