package probe_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/probe"
)

// An HTTP readiness probe against a local test server that plays the pod.
func ExampleHTTPGet() {
	var ready atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !ready.Load() {
			http.Error(w, "warming up", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	addr := netip.MustParseAddrPort(srv.Listener.Addr().String())

	p := probe.HTTPGet(int(addr.Port()), "/readyz")
	target := hook.Target{Pod: "web", Container: "app", IP: addr.Addr()}
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		result, msg, err := p.Probe(ctx, target)
		cancel()
		fmt.Printf("%v %q %v\n", result, msg, err)
		ready.Store(true)
	}
	// Output:
	// failure "HTTP probe failed with statuscode: 503" <nil>
	// success "ok" <nil>
}

// A TCP probe succeeds when something accepts connections on the port.
func ExampleTCPSocket() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	addr := netip.MustParseAddrPort(l.Addr().String())
	target := hook.Target{IP: addr.Addr()}
	p := probe.TCPSocket(int(addr.Port()))

	result, _, _ := p.Probe(context.Background(), target)
	fmt.Println("listening:", result)
	l.Close()
	result, _, _ = p.Probe(context.Background(), target)
	fmt.Println("closed:", result)
	// Output:
	// listening: success
	// closed: failure
}

// An exec probe runs a command in the container through the Target's Execer,
// which podlife provides. Here a fake plays the container.
func ExampleExec() {
	container := hook.ExecerFunc(func(ctx context.Context, argv []string) (hook.ExecResult, error) {
		return hook.ExecResult{ExitCode: 1, Output: []byte("cat: /tmp/ready: No such file or directory\n")}, nil
	})
	result, msg, err := probe.Exec("cat", "/tmp/ready").Probe(context.Background(), hook.Target{Exec: container})
	fmt.Printf("%v %q %v\n", result, msg, err)
	// Output:
	// failure "cat: /tmp/ready: No such file or directory\n" <nil>
}

// Spec.Run bounds one probe by the spec's timeout.
func ExampleSpec_Run() {
	hung := hook.ExecerFunc(func(ctx context.Context, argv []string) (hook.ExecResult, error) {
		<-ctx.Done() // a command that never finishes
		return hook.ExecResult{}, ctx.Err()
	})
	s := probe.Spec{Prober: probe.Exec("pg_isready"), Timeout: 20 * time.Millisecond}
	result, msg, err := s.Run(context.Background(), hook.Target{Exec: hung})
	fmt.Printf("%v %q %v\n", result, msg, err)
	// Output:
	// failure "command \"pg_isready\" timed out" <nil>
}

func ExampleSpec_WithDefaults() {
	s := probe.Spec{Prober: probe.TCPSocket(5432), FailureThreshold: 5}.WithDefaults()
	fmt.Println(s.InitialDelay, s.Period, s.Timeout, s.SuccessThreshold, s.FailureThreshold)
	// Output:
	// 0s 10s 1s 1 5
}

func ExampleSpec_Validate() {
	s := probe.Spec{Prober: probe.HTTPGet(0, "/healthz"), Period: -time.Second, SuccessThreshold: 2}
	err := s.Validate(probe.Liveness)
	fmt.Println(err)

	// Each joined error is a *probe.FieldError; a caller can prefix its own
	// field path, e.g. "spec.containers[0].livenessProbe".
	var fe *probe.FieldError
	if errors.As(err, &fe) {
		fmt.Printf("first: field=%s value=%v detail=%q\n", fe.Field, fe.Value, fe.Detail)
	}
	// Output:
	// httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive
	// periodSeconds: Invalid value: -1s: must be greater than or equal to 0
	// successThreshold: Invalid value: 2: must be 1
	// first: field=httpGet.port value=0 detail="must be between 1 and 65535, inclusive"
}

// A Go function can be a probe.
func ExampleProberFunc() {
	queueDepth := 1200
	p := probe.ProberFunc(func(ctx context.Context, t hook.Target) (probe.Result, string, error) {
		if queueDepth > 1000 {
			return probe.Failure, fmt.Sprintf("queue depth %d", queueDepth), nil
		}
		return probe.Success, "", nil
	})
	result, msg, _ := p.Probe(context.Background(), hook.Target{})
	fmt.Println(result, msg)
	// Output:
	// failure queue depth 1200
}
