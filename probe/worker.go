package probe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/internal/clock"
)

// maxProbeAttempts is the number of times a prober error is tried in one
// tick before the tick is discarded (the kubelet's maxProbeRetries).
const maxProbeAttempts = 3

// defaultHangGrace is how long after its timeout the worker waits for a
// prober that ignores its context before abandoning it.
const defaultHangGrace = time.Second

// WorkerConfig configures a [Worker].
type WorkerConfig struct {
	// Kind is the kind of probe; it sets the initial result and when the
	// worker goes on hold. NewWorker panics on an unknown kind.
	Kind Kind
	// Spec is the probe. NewWorker applies [Spec.WithDefaults]; a Period or
	// Timeout that is still not positive takes the default too. The spec is
	// expected to have passed [Spec.Validate].
	Spec Spec
	// Target is the container that the prober checks.
	Target hook.Target
	// Clock schedules the probes; nil means the real clock. Probe timeouts
	// are context deadlines, always on the real clock.
	Clock clock.Clock
	// StartedAt is when the container started; the first probe waits until
	// StartedAt+InitialDelay. The zero value means when Run is called.
	StartedAt time.Time
	// FastPeriod, if positive, replaces Spec.FastPeriod. The fast period, if
	// positive and shorter than Spec.Period, is used until the result first
	// becomes Success, so that a container is found ready or started sooner;
	// Period applies from then on. It has no effect on liveness probes, whose
	// initial result is Success. This is an extension of podlife; the kubelet
	// has no such field.
	FastPeriod time.Duration
	// OnResult, if set, is called after every probe that ran (one call per
	// period, after retries), with the prober's own result (Success, Warning,
	// Failure or Unknown) and message, before thresholds are applied. Use it
	// for the Warning "Unhealthy" event that the kubelet records on every
	// failure, and the "ProbeWarning" event on Warning.
	OnResult func(r Result, output string)
	// OnTimedResult, if set, is called where OnResult is (after it, if both
	// are set), with the same result and message and how long the attempt
	// that gave the result took on the real clock (a timed-out prober's
	// counts up to when it was given up). Use it for the kubelet's
	// prober_probe_duration_seconds.
	OnTimedResult func(r Result, output string, took time.Duration)
	// OnError, if set, is called when a period is discarded because the
	// prober returned an error on every attempt, with the last error. The
	// kubelet records it as a Warning "Unhealthy" event ("<Kind> probe
	// errored and resulted in unknown state: <err>").
	OnError func(err error)
	// OnChange, if set, is called when the thresholded result changes, with
	// the new result (Success or Failure). It is not called for the initial
	// result, nor when a threshold is reached again with the same result.
	OnChange func(Result)
}

// Worker runs one probe (one container, one kind) on its period and applies
// the thresholds, as the kubelet's probe worker does:
//
//   - The result starts at the kind's initial value: Failure for readiness,
//     Success for liveness, Unknown for startup.
//   - No probe runs before StartedAt+InitialDelay. The first probe runs then
//     (or at once if that time has passed), and then one every Period (or
//     FastPeriod until the first Success), on a fixed grid like a ticker's;
//     a probe that overruns its period is followed by the next at once.
//     (The kubelet's ticker starts when the worker is created and skips the
//     ticks that come before the initial delay, so its first probe may come
//     up to a period later.)
//   - Each attempt is bounded by Spec.Timeout. A prober error (a non-nil
//     error, as opposed to a Failure) is tried up to 3 times in a row; if
//     all of them fail, the period is discarded: it counts for nothing.
//     A prober that returns an error once its timeout has passed, or that
//     does not return within a grace period (1s) after it, counts as a
//     Failure ("probe timed out after 1s"), as the kubelet's probers report
//     timeouts.
//   - Warning counts as Success and Unknown as Failure. The result becomes
//     Success after SuccessThreshold consecutive successes and Failure after
//     FailureThreshold consecutive failures.
//   - After a liveness Failure, or any startup result (Success or Failure),
//     the worker goes on hold: Run returns and the result stays. A new
//     container instance needs a new Worker.
//
// The callbacks are called synchronously from the goroutine of Run, so they
// must not block: a slow callback delays the next probe. Result may be called
// at any time, from any goroutine, and never waits for a probe.
type Worker struct {
	cfg       WorkerConfig
	clock     clock.Clock
	hangGrace time.Duration
	busy      chan struct{} // closed when an abandoned prober returns; only Run's goroutine touches it
	running   atomic.Bool

	mu     sync.Mutex
	result Result // the thresholded result

	// Owned by Run's goroutine.
	lastResult Result // the last counted result, Success or Failure
	resultRun  int    // consecutive results equal to lastResult
	succeeded  bool   // the thresholded result has been Success
}

// NewWorker returns a Worker for cfg. It panics if cfg.Kind is not Startup,
// Readiness or Liveness.
func NewWorker(cfg WorkerConfig) *Worker {
	initial := initialResult(cfg.Kind)
	cfg.Spec = cfg.Spec.WithDefaults()
	if cfg.Spec.Period <= 0 {
		cfg.Spec.Period = DefaultPeriod
	}
	if cfg.Spec.Timeout <= 0 {
		cfg.Spec.Timeout = DefaultTimeout
	}
	if cfg.FastPeriod <= 0 {
		cfg.FastPeriod = cfg.Spec.FastPeriod
	}
	return &Worker{
		cfg:        cfg,
		clock:      clock.OrReal(cfg.Clock),
		hangGrace:  defaultHangGrace,
		result:     initial,
		lastResult: Unknown,
		succeeded:  initial == Success,
	}
}

// initialResult returns the kubelet's initial result for a probe of kind k.
func initialResult(k Kind) Result {
	switch k {
	case Readiness:
		return Failure
	case Liveness:
		return Success
	case Startup:
		return Unknown
	}
	panic(fmt.Sprintf("probe: NewWorker with unknown kind %v", k))
}

// Result returns the current thresholded result: the kind's initial value
// until a threshold is reached, then Success or Failure.
func (w *Worker) Result() Result {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.result
}

// Run probes until ctx is done or the worker goes on hold (see [Worker]).
// A probe in flight when ctx is done is abandoned and reported to no
// callback. Run must be called once; later calls return at once.
func (w *Worker) Run(ctx context.Context) {
	if !w.running.CompareAndSwap(false, true) {
		return
	}
	var timer clock.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	// wait waits for d on the clock and reports whether ctx is still live.
	wait := func(d time.Duration) bool {
		if d <= 0 {
			return ctx.Err() == nil
		}
		if timer == nil {
			timer = w.clock.NewTimer(d)
		} else {
			timer.Reset(d)
		}
		select {
		case <-timer.C():
			return true
		case <-ctx.Done():
			return false
		}
	}

	startedAt := w.cfg.StartedAt
	if startedAt.IsZero() {
		startedAt = w.clock.Now()
	}
	if !wait(startedAt.Add(w.cfg.Spec.InitialDelay).Sub(w.clock.Now())) {
		return
	}
	next := w.clock.Now()
	for w.tick(ctx) {
		next = next.Add(w.period())
		now := w.clock.Now()
		if next.Before(now) {
			next = now
		}
		if !wait(next.Sub(now)) {
			return
		}
	}
}

// period returns the time to the next probe.
func (w *Worker) period() time.Duration {
	if f := w.cfg.FastPeriod; f > 0 && f < w.cfg.Spec.Period && !w.succeeded {
		return f
	}
	return w.cfg.Spec.Period
}

// tick runs one period's probe, with retries, and records its result. It
// reports whether to go on: false when ctx is done or the worker is on hold.
func (w *Worker) tick(ctx context.Context) bool {
	var o outcome
	for range maxProbeAttempts {
		var ok bool
		if o, ok = w.probe(ctx); !ok {
			return false
		}
		if o.err == nil {
			return w.record(o)
		}
	}
	if w.cfg.OnError != nil {
		w.cfg.OnError(o.err)
	}
	return true
}

// outcome is what a prober returned.
type outcome struct {
	r    Result
	out  string
	err  error
	took time.Duration // how long the attempt took, on the real clock
}

// probe runs the prober once. ok is false if ctx was done before it
// returned.
func (w *Worker) probe(ctx context.Context) (o outcome, ok bool) {
	start := time.Now()
	defer func() { o.took = time.Since(start) }()
	if w.busy != nil {
		select {
		case <-w.busy:
			w.busy = nil
		default:
			// The prober abandoned last time has not returned: one in flight per worker, as
			// the kubelet (whose worker blocks on it). Starting another would pile them up on
			// an overloaded host. The container is as unresponsive as before: a failure.
			return outcome{r: Failure, out: "previous probe still running"}, true
		}
	}
	timeout := w.cfg.Spec.Timeout
	abandon, cancelAbandon := context.WithTimeout(ctx, timeout+w.hangGrace)
	defer cancelAbandon()
	pctx, cancel := context.WithTimeout(abandon, timeout)
	defer cancel()

	done := make(chan outcome, 1) // a hung prober's late send must not block
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		r, out, err := w.cfg.Spec.Run(pctx, w.cfg.Target)
		done <- outcome{r: r, out: out, err: err}
	}()
	timedOut := outcome{r: Failure, out: fmt.Sprintf("probe timed out after %v", timeout)}
	select {
	case o = <-done:
		if ctx.Err() != nil {
			return outcome{}, false
		}
		if o.err != nil && errors.Is(pctx.Err(), context.DeadlineExceeded) {
			return timedOut, true
		}
		return o, true
	case <-abandon.Done():
		w.busy = finished
		if ctx.Err() != nil {
			return outcome{}, false
		}
		return timedOut, true
	}
}

// record reports a probe's result and applies the thresholds. It reports
// whether to go on probing.
func (w *Worker) record(o outcome) bool {
	r := o.r
	if w.cfg.OnResult != nil {
		w.cfg.OnResult(r, o.out)
	}
	if w.cfg.OnTimedResult != nil {
		w.cfg.OnTimedResult(r, o.out, o.took)
	}
	counted := Failure
	if r == Success || r == Warning {
		counted = Success
	}
	if counted == w.lastResult {
		w.resultRun++
	} else {
		w.lastResult, w.resultRun = counted, 1
	}
	if (counted == Failure && w.resultRun < w.cfg.Spec.FailureThreshold) ||
		(counted == Success && w.resultRun < w.cfg.Spec.SuccessThreshold) {
		return true
	}
	w.mu.Lock()
	changed := w.result != counted
	w.result = counted
	w.mu.Unlock()
	if counted == Success {
		w.succeeded = true
	}
	if changed && w.cfg.OnChange != nil {
		w.cfg.OnChange(counted)
	}
	hold := (w.cfg.Kind == Liveness && counted == Failure) || w.cfg.Kind == Startup
	return !hold
}
