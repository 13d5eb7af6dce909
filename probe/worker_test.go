package probe

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/internal/clock"
)

var workerEpoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// step is one scripted prober answer.
type step struct {
	r   Result
	out string
	err error
}

var (
	sOK   = step{r: Success, out: "ok"}
	sWarn = step{r: Warning, out: "redirected"}
	sFail = step{r: Failure, out: "bad"}
	sUnk  = step{r: Unknown, out: "?"}
	sErr  = step{r: Unknown, err: errors.New("prober broke")}
)

// harness runs a Worker on a fake clock with a scripted prober and records
// its probes and callbacks.
type harness struct {
	t    *testing.T
	clk  *clock.Fake
	w    *Worker
	done chan struct{}
	// live is cancelled when Run returns, to stop waiting for a timer.
	live context.Context

	mu      sync.Mutex
	script  []step // answers, in order; the last one repeats
	calls   []time.Time
	results []Result
	outputs []string
	errs    []error
	changes []Result
}

// newHarness starts a worker with cfg (Clock, callbacks and a scripted
// prober are filled in) and waits until it is idle.
func newHarness(t *testing.T, cfg WorkerConfig, script ...step) *harness {
	t.Helper()
	h := &harness{t: t, clk: clock.NewFake(workerEpoch), done: make(chan struct{}), script: script}
	if cfg.StartedAt.IsZero() {
		cfg.StartedAt = workerEpoch
	}
	cfg.Clock = h.clk
	cfg.Spec.Prober = ProberFunc(h.probe)
	cfg.OnResult = func(r Result, out string) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.results = append(h.results, r)
		h.outputs = append(h.outputs, out)
	}
	cfg.OnError = func(err error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.errs = append(h.errs, err)
	}
	cfg.OnChange = func(r Result) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.changes = append(h.changes, r)
	}
	h.w = NewWorker(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	live, stop := context.WithCancel(context.Background())
	h.live = live
	go func() {
		defer stop() // after close(h.done): settle sees Run returned
		defer close(h.done)
		h.w.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-h.done
	})
	h.settle()
	return h
}

func (h *harness) probe(ctx context.Context, _ hook.Target) (Result, string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, h.clk.Now())
	s := step{r: Success}
	if len(h.script) > 0 {
		s = h.script[0]
		if len(h.script) > 1 {
			h.script = h.script[1:]
		}
	}
	return s.r, s.out, s.err
}

// settle waits until the worker is idle: waiting on its timer, or returned.
func (h *harness) settle() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.live, waitTimeout)
	defer cancel()
	if err := h.clk.BlockUntil(ctx, 1); err != nil && h.live.Err() == nil {
		h.t.Fatalf("worker did not settle: %v", err)
	}
}

// advance moves the clock by d, which must not span two probes, and waits
// until the worker is idle again.
func (h *harness) advance(d time.Duration) {
	h.t.Helper()
	h.clk.Advance(d)
	h.settle()
}

// returned reports whether Run has returned.
func (h *harness) returned() bool {
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

// probeTimes returns the times of the probes as offsets from workerEpoch.
func (h *harness) probeTimes() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	var d []time.Duration
	for _, c := range h.calls {
		d = append(d, c.Sub(workerEpoch))
	}
	return d
}

func (h *harness) ncalls() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.calls)
}

func (h *harness) gotChanges() []Result {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.changes)
}

func TestWorkerInitialResult(t *testing.T) {
	for kind, want := range map[Kind]Result{Readiness: Failure, Liveness: Success, Startup: Unknown} {
		if got := NewWorker(WorkerConfig{Kind: kind}).Result(); got != want {
			t.Errorf("%v: initial Result = %v, want %v", kind, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("NewWorker with kind 0 did not panic")
		}
	}()
	NewWorker(WorkerConfig{})
}

func TestWorkerThresholds(t *testing.T) {
	S, F, U := Success, Failure, Unknown
	tests := []struct {
		name       string
		kind       Kind
		st, ft     int
		script     []step
		want       []Result // Result() after each probe
		changes    []Result
		holdsAfter int // probes after which Run returns; 0: never
	}{
		{"readiness defaults", Readiness, 0, 0,
			[]step{sFail, sOK, sFail, sFail, sOK, sFail, sFail, sFail, sOK},
			[]Result{F, S, S, S, S, S, S, F, S}, []Result{S, F, S}, 0},
		{"readiness 2/3, warning and unknown", Readiness, 2, 3,
			[]step{sOK, sFail, sOK, sOK, sFail, sFail, sWarn, sUnk, sFail, sFail},
			[]Result{F, F, F, S, S, S, S, S, S, F}, []Result{S, F}, 0},
		{"readiness 1/1", Readiness, 1, 1,
			[]step{sFail, sOK, sOK, sFail, sWarn},
			[]Result{F, S, S, F, S}, []Result{S, F, S}, 0},
		{"liveness failure holds", Liveness, 1, 3,
			[]step{sOK, sFail, sFail, sOK, sFail, sUnk, sFail, sOK},
			[]Result{S, S, S, S, S, S, F}, []Result{F}, 7},
		{"startup success holds", Startup, 1, 3,
			[]step{sFail, sFail, sWarn, sFail},
			[]Result{U, U, S}, []Result{S}, 3},
		{"startup success after a failure", Startup, 1, 3,
			[]step{sFail, sOK, sFail, sFail, sFail, sOK},
			[]Result{U, S}, []Result{S}, 2},
		{"startup fails at threshold", Startup, 1, 3,
			[]step{sFail, sFail, sFail, sOK},
			[]Result{U, U, F}, []Result{F}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, WorkerConfig{Kind: tt.kind, Spec: Spec{SuccessThreshold: tt.st, FailureThreshold: tt.ft}}, tt.script...)
			for i, want := range tt.want {
				if i > 0 {
					h.advance(DefaultPeriod)
				}
				if n := h.ncalls(); n != i+1 {
					t.Fatalf("after %d periods: %d probes", i, n)
				}
				if got := h.w.Result(); got != want {
					t.Errorf("after probe %d (%v): Result = %v, want %v", i+1, tt.script[i].r, got, want)
				}
				if held := i+1 == tt.holdsAfter; held != h.returned() {
					t.Errorf("after probe %d: Run returned = %v, want %v", i+1, h.returned(), held)
				}
			}
			if got := h.gotChanges(); !slices.Equal(got, tt.changes) {
				t.Errorf("OnChange calls = %v, want %v", got, tt.changes)
			}
			if tt.holdsAfter > 0 {
				h.clk.Advance(10 * DefaultPeriod)
				if n := h.ncalls(); n != tt.holdsAfter {
					t.Errorf("%d probes on hold, want %d", n, tt.holdsAfter)
				}
			}
		})
	}
}

func TestWorkerOnResult(t *testing.T) {
	h := newHarness(t, WorkerConfig{Kind: Readiness}, sWarn, sUnk, sFail, sOK)
	for range 3 {
		h.advance(DefaultPeriod)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if want := []Result{Warning, Unknown, Failure, Success}; !slices.Equal(h.results, want) {
		t.Errorf("OnResult results = %v, want %v (the prober's own)", h.results, want)
	}
	if want := []string{"redirected", "?", "bad", "ok"}; !slices.Equal(h.outputs, want) {
		t.Errorf("OnResult outputs = %q, want %q", h.outputs, want)
	}
}

func TestWorkerInitialDelay(t *testing.T) {
	// Started 2s before the clock's now, with a 5s delay: first probe at 3s.
	h := newHarness(t, WorkerConfig{Kind: Liveness, StartedAt: workerEpoch.Add(-2 * time.Second),
		Spec: Spec{InitialDelay: 5 * time.Second}})
	if n := h.ncalls(); n != 0 {
		t.Fatalf("%d probes before the initial delay", n)
	}
	h.advance(3*time.Second - time.Nanosecond)
	if n := h.ncalls(); n != 0 {
		t.Fatalf("%d probes 1ns before the initial delay", n)
	}
	h.advance(time.Nanosecond)
	h.advance(DefaultPeriod - time.Nanosecond)
	h.advance(time.Nanosecond)
	want := []time.Duration{3 * time.Second, 3*time.Second + DefaultPeriod}
	if got := h.probeTimes(); !slices.Equal(got, want) {
		t.Errorf("probes at %v, want %v", got, want)
	}

	// A delay already over: probe at once.
	h = newHarness(t, WorkerConfig{Kind: Liveness, StartedAt: workerEpoch.Add(-time.Hour),
		Spec: Spec{InitialDelay: 5 * time.Second}})
	if got := h.probeTimes(); !slices.Equal(got, []time.Duration{0}) {
		t.Errorf("probes at %v, want [0s]", got)
	}
}

func TestWorkerPeriod(t *testing.T) {
	period := 3 * time.Second
	h := newHarness(t, WorkerConfig{Kind: Readiness, Spec: Spec{Period: period}}, sFail)
	ms := time.Millisecond
	for _, d := range []time.Duration{1000 * ms, 1000 * ms, 1000 * ms, 1500 * ms, 2500 * ms, 2000 * ms, 3000 * ms} {
		h.advance(d)
	}
	// The probe due at 6s runs when the worker wakes, after Advance has
	// brought the fake time to 7s; the grid stays fixed (9s, 12s).
	want := []time.Duration{0, 3 * time.Second, 7 * time.Second, 9 * time.Second, 12 * time.Second}
	if got := h.probeTimes(); !slices.Equal(got, want) {
		t.Errorf("probes at %v, want %v", got, want)
	}
	if n := len(h.errs); n != 0 {
		t.Errorf("OnError called %d times", n)
	}
}

func TestWorkerFastPeriod(t *testing.T) {
	s := time.Second
	tests := []struct {
		name   string
		cfg    WorkerConfig
		script []step
		steps  []time.Duration
		want   []time.Duration
	}{
		{"readiness fast until success", WorkerConfig{Kind: Readiness, FastPeriod: s},
			[]step{sFail, sFail, sOK, sFail, sFail, sFail, sOK},
			[]time.Duration{s, s, 10 * s, 10 * s, 10 * s, 10 * s},
			[]time.Duration{0, s, 2 * s, 12 * s, 22 * s, 32 * s, 42 * s}},
		{"from the spec", WorkerConfig{Kind: Readiness, Spec: Spec{FastPeriod: s}},
			[]step{sFail, sOK},
			[]time.Duration{s, 10 * s},
			[]time.Duration{0, s, 11 * s}},
		{"config overrides spec", WorkerConfig{Kind: Readiness, FastPeriod: 2 * s, Spec: Spec{FastPeriod: s}},
			[]step{sFail, sOK},
			[]time.Duration{2 * s, 10 * s},
			[]time.Duration{0, 2 * s, 12 * s}},
		{"readiness threshold 2", WorkerConfig{Kind: Readiness, FastPeriod: s, Spec: Spec{SuccessThreshold: 2}},
			[]step{sOK, sOK, sOK},
			[]time.Duration{s, 10 * s},
			[]time.Duration{0, s, 11 * s}},
		{"startup", WorkerConfig{Kind: Startup, FastPeriod: s},
			[]step{sFail, sFail, sOK},
			[]time.Duration{s, s, 10 * s},
			[]time.Duration{0, s, 2 * s}},
		{"liveness ignores it", WorkerConfig{Kind: Liveness, FastPeriod: s},
			[]step{sFail},
			[]time.Duration{s, 9 * s, 10 * s},
			[]time.Duration{0, 10 * s, 20 * s}},
		{"longer than period", WorkerConfig{Kind: Readiness, FastPeriod: 20 * s},
			[]step{sFail},
			[]time.Duration{10 * s, 10 * s},
			[]time.Duration{0, 10 * s, 20 * s}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.cfg, tt.script...)
			for _, d := range tt.steps {
				h.advance(d)
			}
			if got := h.probeTimes(); !slices.Equal(got, tt.want) {
				t.Errorf("probes at %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWorkerErrorRetry(t *testing.T) {
	// Liveness, failure threshold 2: failure, a discarded period, failure.
	h := newHarness(t, WorkerConfig{Kind: Liveness, Spec: Spec{FailureThreshold: 2}},
		sFail, sErr, sErr, sErr, sFail)
	if n := h.ncalls(); n != 1 {
		t.Fatalf("%d probes, want 1", n)
	}
	h.advance(DefaultPeriod)
	if n := h.ncalls(); n != 4 {
		t.Fatalf("%d probes after an erroring period, want 1+3", n)
	}
	h.mu.Lock()
	if len(h.errs) != 1 || h.errs[0] != sErr.err || len(h.results) != 1 {
		t.Errorf("OnError %v, OnResult %v; want one error and one result", h.errs, h.results)
	}
	h.mu.Unlock()
	if got := h.w.Result(); got != Success {
		t.Errorf("Result after a discarded period = %v, want success", got)
	}
	h.advance(DefaultPeriod)
	if got := h.w.Result(); got != Failure {
		t.Errorf("Result = %v, want failure (the discarded period does not break the run)", got)
	}
	want := []time.Duration{0, DefaultPeriod, DefaultPeriod, DefaultPeriod, 2 * DefaultPeriod}
	if got := h.probeTimes(); !slices.Equal(got, want) {
		t.Errorf("probes at %v, want %v", got, want)
	}

	// Errors then a result in the same period: the result counts.
	h = newHarness(t, WorkerConfig{Kind: Readiness}, sErr, sErr, sOK)
	if n := h.ncalls(); n != 3 {
		t.Errorf("%d probes, want 3", n)
	}
	if got := h.w.Result(); got != Success {
		t.Errorf("Result = %v, want success", got)
	}
	h.mu.Lock()
	if len(h.errs) != 0 {
		t.Errorf("OnError called with %v", h.errs)
	}
	h.mu.Unlock()
}

func TestWorkerNoProber(t *testing.T) {
	var errs []error
	clk := clock.NewFake(workerEpoch)
	w := NewWorker(WorkerConfig{Kind: Readiness, Clock: clk,
		OnError: func(err error) { errs = append(errs, err) }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	bctx, bcancel := context.WithTimeout(context.Background(), waitTimeout)
	defer bcancel()
	if err := clk.BlockUntil(bctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-done
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "no prober") {
		t.Errorf("OnError calls: %v", errs)
	}
}

func TestWorkerTimeout(t *testing.T) {
	const timeout = 20 * time.Millisecond
	wantMsg := "probe timed out after 20ms"
	tests := []struct {
		name    string
		p       ProberFunc
		wantMsg string
	}{
		{"returns ctx.Err", func(ctx context.Context, _ hook.Target) (Result, string, error) {
			<-ctx.Done()
			return Unknown, "", ctx.Err()
		}, wantMsg},
		{"returns its own failure", func(ctx context.Context, _ hook.Target) (Result, string, error) {
			<-ctx.Done()
			return Failure, "my own timeout", nil
		}, "my own timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls int
			var outputs []string
			clk := clock.NewFake(workerEpoch)
			w := NewWorker(WorkerConfig{Kind: Liveness, Clock: clk,
				Spec: Spec{Timeout: timeout, FailureThreshold: 1, Prober: ProberFunc(func(ctx context.Context, t hook.Target) (Result, string, error) {
					calls++
					return tt.p(ctx, t)
				})},
				OnResult: func(_ Result, out string) { outputs = append(outputs, out) }})
			ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
			defer cancel()
			w.Run(ctx) // returns on hold
			if ctx.Err() != nil {
				t.Fatal("Run did not return")
			}
			if w.Result() != Failure || calls != 1 || !slices.Equal(outputs, []string{tt.wantMsg}) {
				t.Errorf("Result %v after %d calls, outputs %q; want failure after 1 call, %q", w.Result(), calls, outputs, tt.wantMsg)
			}
		})
	}
}

func TestWorkerHungProber(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var mu sync.Mutex
	var outputs []string
	clk := clock.NewFake(workerEpoch)
	w := NewWorker(WorkerConfig{Kind: Readiness, Clock: clk,
		Spec: Spec{Timeout: 10 * time.Millisecond, FailureThreshold: 1, Prober: ProberFunc(func(context.Context, hook.Target) (Result, string, error) {
			<-release // ignores its context
			return Success, "", nil
		})},
		OnResult: func(_ Result, out string) {
			mu.Lock()
			defer mu.Unlock()
			outputs = append(outputs, out)
		}})
	w.hangGrace = 10 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	// The result is readable while the probe hangs.
	_ = w.Result()
	bctx, bcancel := context.WithTimeout(context.Background(), waitTimeout)
	defer bcancel()
	if err := clk.BlockUntil(bctx, 1); err != nil {
		t.Fatalf("the worker did not abandon the hung probe: %v", err)
	}
	mu.Lock()
	got := slices.Clone(outputs)
	mu.Unlock()
	if want := []string{"probe timed out after 10ms"}; !slices.Equal(got, want) {
		t.Errorf("outputs = %q, want %q", got, want)
	}
	if r := w.Result(); r != Failure {
		t.Errorf("Result = %v, want failure", r)
	}
	cancel()
	<-done
}

func TestWorkerCancel(t *testing.T) {
	// Cancelled while waiting for the next period.
	h := newHarness(t, WorkerConfig{Kind: Readiness})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.w.Run(ctx) // a second Run returns at once
	if h.returned() {
		t.Fatal("first Run returned")
	}

	// Cancelled during a probe: no callback, Run returns.
	started := make(chan struct{})
	var results int
	clk := clock.NewFake(workerEpoch)
	w := NewWorker(WorkerConfig{Kind: Readiness, Clock: clk,
		Spec: Spec{Timeout: time.Hour, Prober: ProberFunc(func(ctx context.Context, _ hook.Target) (Result, string, error) {
			close(started)
			<-ctx.Done()
			return Failure, "cancelled", nil
		})},
		OnResult: func(Result, string) { results++ }})
	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	<-started
	cancel()
	<-done
	if results != 0 {
		t.Errorf("OnResult called %d times for a cancelled probe", results)
	}
}

func TestWorkerZeroStartedAt(t *testing.T) {
	clk := clock.NewFake(workerEpoch)
	var calls []time.Time
	w := NewWorker(WorkerConfig{Kind: Readiness, Clock: clk,
		Spec: Spec{InitialDelay: 2 * time.Second, Prober: ProberFunc(func(context.Context, hook.Target) (Result, string, error) {
			calls = append(calls, clk.Now())
			return Success, "", nil
		})}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	bctx, bcancel := context.WithTimeout(context.Background(), waitTimeout)
	defer bcancel()
	if err := clk.BlockUntil(bctx, 1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Second) // fires the delay timer; then wait for the period timer
	if err := clk.BlockUntil(bctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-done
	if len(calls) != 1 || !calls[0].Equal(workerEpoch.Add(2*time.Second)) {
		t.Errorf("probes at %v, want one at +2s", calls)
	}
}

// One probe in flight per worker: while an abandoned prober has not returned, later periods
// record a failure without starting another prober; once it returns, probing resumes.
func TestWorkerOneProbeInFlight(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	var mu sync.Mutex
	var outputs []string
	clk := clock.NewFake(workerEpoch)
	w := NewWorker(WorkerConfig{Kind: Readiness, Clock: clk,
		Spec: Spec{Period: time.Second, Timeout: 10 * time.Millisecond, FailureThreshold: 1, Prober: ProberFunc(func(context.Context, hook.Target) (Result, string, error) {
			if calls.Add(1) == 1 {
				<-release // the first one ignores its context
			}
			return Success, "", nil
		})},
		OnResult: func(_ Result, out string) {
			mu.Lock()
			defer mu.Unlock()
			outputs = append(outputs, out)
		}})
	w.hangGrace = 10 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	bctx, bcancel := context.WithTimeout(context.Background(), waitTimeout)
	defer bcancel()
	period := func() {
		t.Helper()
		if err := clk.BlockUntil(bctx, 1); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Second)
	}
	period() // the first probe was abandoned; the next period comes
	period() // and another, while it still hangs
	if err := clk.BlockUntil(bctx, 1); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d probers started while the first still ran, want 1", n)
	}
	mu.Lock()
	got := slices.Clone(outputs)
	mu.Unlock()
	if want := []string{"probe timed out after 10ms", "previous probe still running", "previous probe still running"}; !slices.Equal(got, want) {
		t.Errorf("outputs %q, want %q", got, want)
	}
	close(release)
	// Once it returned, the next period probes again.
	deadline := time.Now().Add(waitTimeout)
	for w.Result() != Success && time.Now().Before(deadline) {
		clk.Advance(time.Second)
		_ = clk.BlockUntil(bctx, 1)
	}
	if w.Result() != Success || calls.Load() < 2 {
		t.Errorf("after the hung prober returned: result %v, %d calls; want Success from a new probe", w.Result(), calls.Load())
	}
}

// OnTimedResult gets what OnResult gets, after it, and how long the attempt took on the real
// clock: here a prober that answers when its 30ms timeout ends.
func TestWorkerOnTimedResult(t *testing.T) {
	const timeout = 30 * time.Millisecond
	var order []string
	var took time.Duration
	var got Result
	w := NewWorker(WorkerConfig{Kind: Liveness, Clock: clock.NewFake(workerEpoch),
		Spec: Spec{Timeout: timeout, FailureThreshold: 1, Prober: ProberFunc(func(ctx context.Context, _ hook.Target) (Result, string, error) {
			<-ctx.Done()
			return Failure, "slow", nil
		})},
		OnResult: func(Result, string) { order = append(order, "result") },
		OnTimedResult: func(r Result, out string, d time.Duration) {
			order = append(order, "timed:"+out)
			got, took = r, d
		}})
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	w.Run(ctx) // returns on hold
	if ctx.Err() != nil {
		t.Fatal("Run did not return")
	}
	if !slices.Equal(order, []string{"result", "timed:slow"}) || got != Failure {
		t.Errorf("calls %q, result %v; want OnResult then OnTimedResult with the failure", order, got)
	}
	if took < timeout || took > waitTimeout {
		t.Errorf("took %v, want at least the %v the prober waited", took, timeout)
	}
}
