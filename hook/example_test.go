package hook_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"time"

	"github.com/podlife/podlife/hook"
)

// A postStart hook that tells the application it has started. The request goes
// from the host to the pod's IP; here a local test server plays the pod.
func ExampleHTTPGet() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("server got", r.Method, r.URL.Path, "X-Phase:", r.Header.Get("X-Phase"))
		w.WriteHeader(http.StatusServiceUnavailable) // the status code is not checked
	}))
	defer srv.Close()
	addr := netip.MustParseAddrPort(srv.Listener.Addr().String())

	h := hook.HTTPGet(int(addr.Port()), "/started", hook.WithHeader("X-Phase", "postStart"))
	err := h.Run(context.Background(), hook.Target{Pod: "web", Container: "app", IP: addr.Addr()})
	fmt.Println("error:", err)
	// Output:
	// server got GET /started X-Phase: postStart
	// error: <nil>
}

// An exec hook runs a command in the container through the Target's Execer,
// which podlife provides. Here a fake plays the container.
func ExampleExec() {
	container := hook.ExecerFunc(func(ctx context.Context, argv []string) (hook.ExecResult, error) {
		return hook.ExecResult{ExitCode: 2, Output: []byte("nginx: config error\n")}, nil
	})
	h := hook.Exec("nginx", "-s", "reload")
	err := h.Run(context.Background(), hook.Target{Pod: "web", Container: "nginx", Exec: container})
	fmt.Println(err)

	var exit *hook.ExitError
	if errors.As(err, &exit) {
		fmt.Println("exit code:", exit.Code)
	}
	// Output:
	// lifecycle hook exec [nginx -s reload] for container "nginx" in pod "web" failed: exit code 2, output: "nginx: config error\n"
	// exit code: 2
}

// A preStop sleep is cut short when the grace period (the context) ends.
func ExampleSleep() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err := hook.Sleep(30*time.Second).Run(ctx, hook.Target{Pod: "web", Container: "app"})
	fmt.Println(err)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	// Output:
	// lifecycle hook sleep 30s for container "app" in pod "web" failed: container terminated before sleep hook finished: context deadline exceeded
	// true
}

// A Go function can be a hook.
func ExampleHandlerFunc() {
	h := hook.HandlerFunc(func(ctx context.Context, t hook.Target) error {
		fmt.Printf("warming caches of %s/%s at %v\n", t.Pod, t.Container, t.IP)
		return nil
	})
	_ = h.Run(context.Background(), hook.Target{Pod: "web", Container: "app", IP: netip.MustParseAddr("10.88.0.5")})
	fmt.Println(hook.Describe(h))
	// Output:
	// warming caches of web/app at 10.88.0.5
	// func
}

func ExampleDescribe() {
	for _, h := range []hook.Handler{
		hook.Exec("sh", "-c", "echo started > /tmp/started"),
		hook.HTTPGet(8443, "/shutdown", hook.WithScheme("HTTPS"), hook.WithHeader("Authorization", "Bearer s3cr3t")),
		hook.Sleep(5 * time.Second),
	} {
		fmt.Println(hook.Describe(h))
	}
	// Output:
	// exec [sh -c echo started > /tmp/started]
	// httpGet https://:8443/shutdown
	// sleep 5s
}

// When an HTTPS hook reaches a server that speaks plain HTTP, the request is
// retried over HTTP and Target.Warn is told, so the caller can emit a Warning
// event.
func ExampleTarget_warn() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	addr := netip.MustParseAddrPort(srv.Listener.Addr().String())

	t := hook.Target{
		IP: addr.Addr(),
		Warn: func(reason, message string) {
			fmt.Println("Warning", reason)
		},
	}
	err := hook.HTTPGet(int(addr.Port()), "/", hook.WithScheme("HTTPS")).Run(context.Background(), t)
	fmt.Println("error:", err)
	// Output:
	// Warning LifecycleHTTPFallback
	// error: <nil>
}
