// Package podwatch runs a pod in the background and hands its Pod over as soon as the Runtime
// knows it, for programs that watch a start as it happens (the startup-sequence demo and the
// bench's gated start).
//
// It imports package podlife; package podlife must never import it.
package podwatch

import (
	"context"

	"github.com/podlife/podlife/podlife"
)

// Run runs spec in the background (Runtime.Run in a goroutine) and returns its pod as soon as the runtime knows it
// (its first event), to watch the start as it happens, and a channel with Run's result.
func Run(ctx context.Context, rt *podlife.Runtime, spec podlife.PodSpec) (*podlife.Pod, <-chan error, error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := rt.Subscribe(sctx)
	runErr := make(chan error, 1)
	go func() {
		_, err := rt.Run(ctx, spec)
		runErr <- err
	}()
	for {
		select {
		case ev := <-events:
			if ev.Pod != spec.Name {
				continue
			}
			if pod, err := rt.Pod(spec.Name); err == nil {
				return pod, runErr, nil
			}
		case err := <-runErr:
			if err != nil {
				return nil, nil, err
			}
			runErr <- nil // Run returned before its first event was read
			pod, err := rt.Pod(spec.Name)
			return pod, runErr, err
		}
	}
}
