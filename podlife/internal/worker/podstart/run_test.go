package podstart

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/podlife/podlife/podlife/internal/api"
)

// testPod is a Pod whose steps record what ran; its goroutines are awaited by wait.
type testPod struct {
	mu     sync.Mutex
	steps  []string
	wg     sync.WaitGroup
	netErr error
}

func (tp *testPod) add(s string) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.steps = append(tp.steps, s)
}

func (tp *testPod) pod(containers int, prepare func(ctx context.Context) error) Pod {
	netReady := make(chan struct{})
	p := Pod{Name: "p", Log: slog.New(slog.DiscardHandler),
		Emit: func(_ api.EventType, r api.Reason, _ string) { tp.add("event " + string(r)) },
		Go:   func(_ string, fn func()) { tp.wg.Add(1); go func() { defer tp.wg.Done(); fn() }() },
		Sandbox: []Step{
			{Step: api.StepSandbox, Run: func(context.Context) error { tp.add("lease"); return nil }},
			{Step: api.StepSandbox, Event: true, Run: func(context.Context) error { tp.add("sandbox"); return nil }},
		},
		Attach:      func(context.Context) error { return nil },
		IP:          func() string { return "10.0.0.2" },
		NetworkDone: func(err error) { tp.netErr = err; close(netReady) },
		NetReady:    netReady,
		NetErr:      func() error { return tp.netErr },
		Leased:      func(ctx context.Context) context.Context { return ctx },
		Inits:       func(context.Context) error { tp.add("inits"); return nil },
		Apps:        func(context.Context) error { tp.add("apps"); return nil },
		Stopping:    func() bool { return false },
		ShimAborted: errAborted,
	}
	for range containers {
		prepared := make(chan struct{})
		var err error
		p.Containers = append(p.Containers, Container{Prepared: prepared, Err: func() error { return err },
			Prepare: func(ctx context.Context) { defer close(prepared); err = prepare(ctx) }})
	}
	return p
}

func TestRun(t *testing.T) {
	boom := errors.New("boom")
	t.Run("started", func(t *testing.T) {
		tp := &testPod{}
		err := Run(context.Background(), tp.pod(2, func(context.Context) error { return nil }))
		tp.wg.Wait()
		// The attach's SandboxReady comes at any time after the sandbox's steps.
		steps := slices.DeleteFunc(slices.Clone(tp.steps), func(s string) bool { return s == "event SandboxReady" })
		if err != nil || len(steps) != len(tp.steps)-1 || !slices.Equal(steps, []string{"lease", "sandbox", "inits", "apps"}) {
			t.Errorf("err %v, steps %q", err, tp.steps)
		}
	})
	t.Run("sandbox fails", func(t *testing.T) {
		tp := &testPod{}
		p := tp.pod(1, func(context.Context) error { return nil })
		p.Sandbox[1].Run = func(context.Context) error { return boom }
		err := Run(context.Background(), p)
		tp.wg.Wait()
		var se *api.StartError
		if !errors.As(err, &se) || se.Step != api.StepSandbox || !errors.Is(err, boom) ||
			!slices.Equal(tp.steps, []string{"lease", "event FailedCreatePodSandBox"}) {
			t.Errorf("err %v, steps %q; want the sandbox's StartError after one FailedCreatePodSandBox", err, tp.steps)
		}
		select {
		case <-p.NetReady:
		default:
			t.Error("NetReady not closed")
		}
	})
	t.Run("network fails", func(t *testing.T) {
		tp := &testPod{}
		// The preparation waits until the sequence is cancelled: the network's failure does it.
		p := tp.pod(1, func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
		p.Attach = func(context.Context) error { return boom }
		p.Inits = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
		err := Run(context.Background(), p)
		tp.wg.Wait()
		var se *api.StartError
		if !errors.As(err, &se) || se.Step != api.StepNetwork || !errors.Is(err, boom) {
			t.Errorf("err %v, want the network's StartError", err)
		}
	})
	t.Run("preparation fails", func(t *testing.T) {
		tp := &testPod{}
		own := &api.StartError{Pod: "p", Container: "c", Step: api.StepCreate, Err: boom}
		p := tp.pod(1, func(context.Context) error { return own })
		p.Inits = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
		if err := Run(context.Background(), p); err != own {
			t.Errorf("err %v, want the container's own failure", err)
		}
		tp.wg.Wait()
	})
}
