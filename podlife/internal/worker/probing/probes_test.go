package probing

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/probe"
)

const long = 30 * time.Second // an upper bound, never a synchronisation

// prober returns what result holds, with output out.
func prober(result *atomic.Int32, out string) probe.Prober {
	return probe.ProberFunc(func(context.Context, hook.Target) (probe.Result, string, error) {
		return probe.Result(result.Load()), out, nil
	})
}

func spec(p probe.Prober) *probe.Spec {
	return &probe.Spec{Prober: p, Period: 5 * time.Millisecond, Timeout: time.Second, FailureThreshold: 1}
}

type calls struct {
	order   chan string
	ready   chan bool
	kills   chan probe.Kind
	results chan Result
	warns   chan string
}

func newCalls() *calls {
	return &calls{order: make(chan string, 16), ready: make(chan bool, 1024), kills: make(chan probe.Kind, 16),
		results: make(chan Result, 1024), warns: make(chan string, 1024)}
}

func (c *calls) config(started bool) Config {
	return Config{Pod: "p", Namespace: "ns", PodUID: "uid", Container: "c", Clock: clock.Real{},
		Log:           slog.New(slog.NewTextHandler(io.Discard, nil)),
		Warn:          func(r api.Reason, msg string) { c.warns <- string(r) + ": " + msg },
		Publish:       func(r Result) { c.results <- r },
		StartupPassed: func() { c.order <- "startup passed" },
		Started:       func() bool { c.order <- "started"; return started },
		Ready:         func(ok bool) { c.ready <- ok },
		Kill:          func(k probe.Kind, _ *probe.Spec) { c.kills <- k },
	}
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(long):
		t.Fatalf("no %s", what)
		panic("unreachable")
	}
}

// The startup probe gates the others: once it passes the start is recorded, then the readiness
// probe sets the container ready and a failing liveness probe asks for the kill. Results are
// published with the pod's names; Wait returns once the contexts end.
func TestStartupThenReadinessAndLiveness(t *testing.T) {
	var startup, readiness, liveness atomic.Int32
	startup.Store(int32(probe.Success))
	readiness.Store(int32(probe.Success))
	liveness.Store(int32(probe.Success))
	c := newCalls()
	cfg := c.config(true)
	cfg.Startup, cfg.Readiness, cfg.Liveness = spec(prober(&startup, "")), spec(prober(&readiness, "")), spec(prober(&liveness, "dead"))
	ctx, cancel := context.WithCancel(context.Background())
	readyCtx, cancelReady := context.WithCancel(context.Background())
	s := Start(ctx, readyCtx, cfg)
	if got := recv(t, c.order, "StartupPassed"); got != "startup passed" {
		t.Fatalf("first call %q, want startup passed", got)
	}
	if got := recv(t, c.order, "Started"); got != "started" {
		t.Fatalf("second call %q, want started", got)
	}
	if !recv(t, c.ready, "Ready") {
		t.Fatal("Ready(false), want true")
	}
	liveness.Store(int32(probe.Failure))
	if k := recv(t, c.kills, "Kill"); k != probe.Liveness {
		t.Fatalf("kill for %s, want liveness", k)
	}
	for {
		w := recv(t, c.warns, "Unhealthy event")
		if w == "Unhealthy: Liveness probe failed: dead" {
			break
		}
	}
	r := recv(t, c.results, "a result")
	if r.Pod != "p" || r.Namespace != "ns" || r.PodUID != "uid" || r.Container != "c" || r.Time.IsZero() {
		t.Errorf("result %+v: want the pod's names and a time", r)
	}
	cancel()
	cancelReady()
	done := make(chan struct{})
	go func() { s.Wait(); close(done) }()
	recv(t, done, "end of the probe workers")
}

// An instance that is no longer current when its startup probe passes gets no other probe; a
// startup probe that passed before (StartupDone) is skipped.
func TestNotStartedAndStartupDone(t *testing.T) {
	var ok, never atomic.Int32
	ok.Store(int32(probe.Success))
	never.Store(int32(probe.Failure))
	c := newCalls()
	cfg := c.config(false)
	cfg.Startup, cfg.Readiness = spec(prober(&ok, "")), spec(prober(&ok, ""))
	ctx, cancel := context.WithCancel(context.Background())
	s := Start(ctx, ctx, cfg)
	recv(t, c.order, "StartupPassed")
	recv(t, c.order, "Started")
	cancel()
	s.Wait() // the startup worker ends with ctx; no readiness worker was started
	select {
	case v := <-c.ready:
		t.Errorf("Ready(%v) for an instance that is not current", v)
	default:
	}
	for len(c.results) > 0 {
		if r := <-c.results; r.Kind != probe.Startup {
			t.Errorf("a %s result for an instance that is not current", r.Kind)
		}
	}

	c = newCalls()
	cfg = c.config(true)
	cfg.Startup, cfg.Readiness, cfg.StartupDone = spec(prober(&never, "")), spec(prober(&ok, "")), true
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	s = Start(ctx, ctx, cfg)
	if got := recv(t, c.order, "Started"); got != "started" {
		t.Fatalf("first call %q, want started (no startup probe)", got)
	}
	if !recv(t, c.ready, "Ready") {
		t.Fatal("Ready(false), want true")
	}
	cancel()
	s.Wait()
	for len(c.results) > 0 {
		if r := <-c.results; r.Kind == probe.Startup {
			t.Error("a startup result although the startup probe passed before")
		}
	}
}

// A failing startup probe asks for the kill; a prober error publishes Unknown and warns.
func TestStartupFailureAndError(t *testing.T) {
	var fail atomic.Int32
	fail.Store(int32(probe.Failure))
	c := newCalls()
	cfg := c.config(true)
	cfg.Startup = spec(prober(&fail, "no"))
	ctx, cancel := context.WithCancel(context.Background())
	s := Start(ctx, ctx, cfg)
	if k := recv(t, c.kills, "Kill"); k != probe.Startup {
		t.Fatalf("kill for %s, want startup", k)
	}
	cancel()
	s.Wait()

	c = newCalls()
	cfg = c.config(true)
	cfg.Readiness = spec(probe.ProberFunc(func(context.Context, hook.Target) (probe.Result, string, error) {
		return probe.Unknown, "", io.ErrUnexpectedEOF
	}))
	ctx, cancel = context.WithCancel(context.Background())
	s = Start(ctx, ctx, cfg)
	for {
		w := recv(t, c.warns, "the error's event")
		if w == "Unhealthy: Readiness probe errored and resulted in unknown state: "+io.ErrUnexpectedEOF.Error() {
			break
		}
	}
	for {
		if r := recv(t, c.results, "the Unknown result"); r.Result == probe.Unknown && r.Duration == 0 {
			break
		}
	}
	cancel()
	s.Wait()
}
