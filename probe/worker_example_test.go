package probe_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/probe"
)

// A readiness worker that probes every 10ms until the container is ready,
// then every 10s; it is stopped once the container is ready.
func ExampleWorker() {
	var calls atomic.Int32
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	w := probe.NewWorker(probe.WorkerConfig{
		Kind: probe.Readiness,
		Spec: probe.Spec{
			Prober: probe.ProberFunc(func(context.Context, hook.Target) (probe.Result, string, error) {
				if calls.Add(1) < 3 {
					return probe.Failure, "warming up", nil
				}
				return probe.Success, "", nil
			}),
			Period: 10 * time.Second,
		},
		FastPeriod: 10 * time.Millisecond,
		OnResult: func(r probe.Result, output string) {
			if r == probe.Failure {
				fmt.Println("Readiness probe failed:", output)
			}
		},
		OnChange: func(r probe.Result) {
			fmt.Println("readiness:", r)
			cancel()
		},
	})
	fmt.Println("initially:", w.Result())
	w.Run(ctx)
	// Output:
	// initially: failure
	// Readiness probe failed: warming up
	// Readiness probe failed: warming up
	// readiness: success
}
