package probing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/probe"
)

// Config is one instance's probes and what they report to. The functions are called on the
// probe workers' goroutines (Kill on one of its own): they must not block for long.
type Config struct {
	// Pod, Namespace and PodUID name the pod, Container the probed container (for events,
	// logs and results).
	Pod, Namespace, PodUID, Container string
	// Startup, Liveness and Readiness are its probes; nil for none.
	Startup, Liveness, Readiness *probe.Spec
	// StartupDone skips the startup probe: it succeeded for this instance already (under a
	// previous manager).
	StartupDone bool
	// Target is the instance the probes check; StartedAt when its process started.
	Target    hook.Target
	StartedAt time.Time
	// Clock schedules the probes.
	Clock clock.Clock
	// Log gets a debug line for a period skipped while containerd is away.
	Log *slog.Logger

	// Warn records a Warning event of the container (Unhealthy, ProbeWarning).
	Warn func(reason api.Reason, msg string)
	// Publish publishes a probe's result, before thresholds.
	Publish func(Result)
	// StartupPassed records that the startup probe succeeded (before Started is called).
	StartupPassed func()
	// Started marks the instance started, once its startup probe succeeded (at once without
	// one). It reports whether the instance is still the container's current, running one:
	// if not, the readiness and liveness probes do not start.
	Started func() bool
	// Ready sets the container's readiness on every change of its readiness probe's result.
	Ready func(ok bool)
	// Kill asks for the instance to be killed: its startup or liveness probe (kind, spec)
	// failed. The kill runs on a goroutine of its own.
	Kill func(kind probe.Kind, spec *probe.Spec)
}

// Set is the probe workers of one instance, and the kills they asked for.
type Set struct {
	cfg Config
	wg  sync.WaitGroup
}

// Start starts the instance's probes: the startup probe first (unless there is none or
// cfg.StartupDone), then, once it succeeded and Started agreed, readiness and liveness. ctx ends
// the startup and liveness probes, readyCtx the readiness probe. Each probe runs on a goroutine
// of its own: a slow or hanging probe delays nothing else.
func Start(ctx, readyCtx context.Context, cfg Config) *Set {
	s := &Set{cfg: cfg}
	if cfg.Startup == nil || cfg.StartupDone {
		s.started(ctx, readyCtx)
		return s
	}
	s.run(ctx, probe.Startup, cfg.Startup, func(r probe.Result) {
		switch r {
		case probe.Success:
			cfg.StartupPassed()
			s.started(ctx, readyCtx)
		case probe.Failure:
			s.kill(probe.Startup, cfg.Startup)
		}
	})
	return s
}

// Wait blocks until every probe worker of the set has returned (their contexts ended) and every
// kill they asked for has returned.
func (s *Set) Wait() { s.wg.Wait() }

// started marks the instance started and starts its readiness probe (under readyCtx) and
// liveness probe (under ctx).
func (s *Set) started(ctx, readyCtx context.Context) {
	cfg := s.cfg
	if !cfg.Started() {
		return
	}
	if spec := cfg.Readiness; spec != nil {
		s.run(readyCtx, probe.Readiness, spec, func(r probe.Result) { cfg.Ready(r == probe.Success) })
	}
	if spec := cfg.Liveness; spec != nil {
		s.run(ctx, probe.Liveness, spec, func(r probe.Result) {
			if r == probe.Failure {
				s.kill(probe.Liveness, spec)
			}
		})
	}
}

// kill asks for the instance's kill, on a goroutine of the set.
func (s *Set) kill(kind probe.Kind, spec *probe.Spec) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.cfg.Kill(kind, spec)
	}()
}

// run starts a probe worker; onChange gets every change of its result.
func (s *Set) run(ctx context.Context, kind probe.Kind, spec *probe.Spec, onChange func(probe.Result)) {
	cfg := s.cfg
	name := capitalize(kind.String())
	w := probe.NewWorker(probe.WorkerConfig{
		Kind: kind, Spec: *spec, Target: cfg.Target, Clock: cfg.Clock,
		StartedAt: cfg.StartedAt, FastPeriod: spec.FastPeriod,
		OnResult: func(r probe.Result, out string) {
			switch r {
			case probe.Failure, probe.Unknown:
				cfg.Warn(api.ReasonUnhealthy, fmt.Sprintf("%s probe failed: %s", name, strings.TrimSpace(out)))
			case probe.Warning:
				cfg.Warn(api.ReasonProbeWarning, fmt.Sprintf("%s probe warning: %s", name, strings.TrimSpace(out)))
			}
		},
		OnTimedResult: func(r probe.Result, _ string, took time.Duration) { s.publish(kind, r, took) },
		OnError: func(err error) {
			if errors.Is(err, errdefs.ErrUnavailable) {
				// containerd is away: the period counts for nothing, and it is no news.
				cfg.Log.Debug("probe skipped: containerd unavailable", "container", cfg.Container, "probe", kind.String())
				return
			}
			s.publish(kind, probe.Unknown, 0)
			cfg.Warn(api.ReasonUnhealthy, fmt.Sprintf("%s probe errored and resulted in unknown state: %v", name, err))
		},
		OnChange: onChange,
	})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		w.Run(ctx)
	}()
}

// publish publishes a result of the kind's probe.
func (s *Set) publish(kind probe.Kind, r probe.Result, took time.Duration) {
	cfg := s.cfg
	cfg.Publish(Result{Time: time.Now(), Pod: cfg.Pod, Namespace: cfg.Namespace, PodUID: cfg.PodUID,
		Container: cfg.Container, Kind: kind, Result: r, Duration: took})
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
