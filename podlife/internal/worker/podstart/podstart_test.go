package podstart

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/podlife/podlife/podlife/internal/api"
)

var errAborted = errors.New("shim aborted")

type configErr struct{ error }

func (configErr) Is(target error) bool { return target == api.ErrCreateContainerConfig }

// RootPrepError returns the first failure of a container's own, else a "ttrpc: closed" or
// shim shutdown consequence, never a cancellation, an aborted create or a config error.
func TestRootPrepError(t *testing.T) {
	own, closed := errors.New("create: boom"), errors.New("ttrpc: closed")
	// What containerd 2.4's runc shim says of a create whose FIFO open its shutdown cut.
	fifoCut := errors.New(`container "ok": create: create task: failed to create shim task: failed to start io pipe copy: unable to copy pipes: containerd-shim: opening w/o fifo "/x/fifo/1/a-stderr" failed: shutdown`)
	for _, tc := range []struct {
		errs []error
		want error
	}{
		{nil, nil},
		{[]error{nil, context.Canceled, errAborted, configErr{errors.New("x")}}, nil},
		{[]error{closed, own}, own},
		{[]error{nil, closed}, closed},
		{[]error{fifoCut, own}, own},
		{[]error{fifoCut, nil}, fifoCut},
	} {
		if got := RootPrepError(tc.errs, errAborted); got != tc.want {
			t.Errorf("RootPrepError(%v) = %v, want %v", tc.errs, got, tc.want)
		}
	}
}

// AppsResult: the cancel cause first; nothing once stopping; a postStart failure is not the
// start's; a config error only when no other failure.
func TestAppsResult(t *testing.T) {
	start := &api.StartError{Pod: "p", Container: "a", Step: api.StepStart, Err: errors.New("boom")}
	post := &api.StartError{Pod: "p", Container: "b", Step: api.StepPostStart, Err: errors.New("hook")}
	cfg := &api.StartError{Pod: "p", Container: "c", Step: api.StepCreate, Err: configErr{errors.New("user")}}
	cause := errors.New("network")
	cancelled, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	for i, tc := range []struct {
		ctx      context.Context
		err      error
		stopping bool
		want     error
	}{
		{context.Background(), nil, false, nil},
		{cancelled, start, false, cause},
		{context.Background(), start, true, nil},
		{context.Background(), post, false, nil},
		{context.Background(), errors.Join(cfg, post, start), false, start},
		{context.Background(), errors.Join(post, cfg), false, cfg},
		{context.Background(), errors.New("not a StartError"), false, nil},
	} {
		if got := AppsResult(tc.ctx, tc.err, tc.stopping); got != tc.want {
			t.Errorf("case %d: AppsResult = %v, want %v", i, got, tc.want)
		}
	}
}

// Prepare: each step's failure shows as the kubelet's waiting reason, with or without an event,
// at its step; a cancellation is not the container's failure.
func TestPrepare(t *testing.T) {
	boom := errors.New("boom")
	type rec struct{ waiting, events []string }
	run := func(ctx context.Context, mod func(*Prep[string])) (error, *rec) {
		r := &rec{}
		c := Prep[string]{Pod: "p", Container: "c", ShimAborted: errAborted,
			Image:         func(context.Context) (string, error) { return "img", nil },
			UseImage:      func(context.Context, string) error { return nil },
			VerifyNonRoot: func() error { return nil },
			Create:        func(context.Context) error { return nil },
			SetWaiting:    func(reason api.Reason, msg string) { r.waiting = append(r.waiting, string(reason)+": "+msg) },
			Emit: func(typ api.EventType, reason api.Reason, msg string) {
				r.events = append(r.events, fmt.Sprintf("%s %s %s", typ, reason, msg))
			},
		}
		mod(&c)
		return Prepare(ctx, c), r
	}
	stepOf := func(err error) api.Step {
		var se *api.StartError
		if errors.As(err, &se) {
			return se.Step
		}
		return ""
	}
	t.Run("ok", func(t *testing.T) {
		err, r := run(context.Background(), func(*Prep[string]) {})
		if err != nil || len(r.waiting) != 0 || len(r.events) != 1 || r.events[0] != "Normal Created Created container: c" {
			t.Errorf("err %v, waiting %v, events %v; want nil, none, Created", err, r.waiting, r.events)
		}
	})
	t.Run("pull", func(t *testing.T) {
		err, r := run(context.Background(), func(c *Prep[string]) {
			c.Image = func(context.Context) (string, error) { return "", fmt.Errorf("x: %w", api.ErrImageNeverPull) }
		})
		if stepOf(err) != api.StepPull || len(r.events) != 0 || len(r.waiting) != 1 || r.waiting[0] != "ErrImageNeverPull: x: "+api.ErrImageNeverPull.Error() {
			t.Errorf("err %v, waiting %v, events %v", err, r.waiting, r.events)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err, r := run(ctx, func(c *Prep[string]) { c.Image = func(ctx context.Context) (string, error) { return "", ctx.Err() } })
		if err != context.Canceled || len(r.waiting)+len(r.events) != 0 {
			t.Errorf("err %v, waiting %v, events %v; want the cancellation alone", err, r.waiting, r.events)
		}
	})
	t.Run("config", func(t *testing.T) {
		err, r := run(context.Background(), func(c *Prep[string]) { c.VerifyNonRoot = func() error { return configErr{boom} } })
		if stepOf(err) != api.StepCreate || !errors.Is(err, api.ErrCreateContainerConfig) ||
			len(r.waiting) != 1 || r.waiting[0] != "CreateContainerConfigError: boom" || len(r.events) != 1 {
			t.Errorf("err %v, waiting %v, events %v", err, r.waiting, r.events)
		}
	})
	t.Run("network", func(t *testing.T) {
		err, r := run(context.Background(), func(c *Prep[string]) { c.WaitNetwork = func(context.Context) error { return boom } })
		if err != boom || len(r.waiting)+len(r.events) != 0 {
			t.Errorf("err %v, waiting %v, events %v; want the network's failure alone", err, r.waiting, r.events)
		}
	})
	t.Run("create", func(t *testing.T) {
		err, r := run(context.Background(), func(c *Prep[string]) { c.Create = func(context.Context) error { return boom } })
		if stepOf(err) != api.StepCreate || len(r.waiting) != 1 || r.waiting[0] != "CreateContainerError: boom" ||
			len(r.events) != 1 || r.events[0] != "Warning Failed Error: boom" {
			t.Errorf("err %v, waiting %v, events %v", err, r.waiting, r.events)
		}
	})
	t.Run("aborted", func(t *testing.T) {
		err, r := run(context.Background(), func(c *Prep[string]) { c.Create = func(context.Context) error { return errAborted } })
		if err != errAborted || len(r.waiting)+len(r.events) != 0 {
			t.Errorf("err %v, waiting %v, events %v; want the abort alone", err, r.waiting, r.events)
		}
	})
}

// OutcomeOf: the first rule that holds decides; the runtime's closing is asked only when it
// decides.
func TestOutcomeOf(t *testing.T) {
	boom := errors.New("boom")
	cfg := &api.StartError{Pod: "p", Container: "c", Step: api.StepCreate, Err: configErr{boom}}
	for i, tc := range []struct {
		err      error
		stopping bool
		closed   bool
		want     Outcome
		asked    bool
	}{
		{nil, true, true, Started, false},
		{boom, true, true, Stays, false},
		{fmt.Errorf("init: %w", ErrPodFailed), false, true, Stays, false},
		{cfg, false, true, ConfigFailed, false},
		{boom, false, true, Detached, true},
		{boom, false, false, Failed, true},
	} {
		asked := false
		got := OutcomeOf(tc.err, tc.stopping, func() bool { asked = true; return tc.closed })
		if got != tc.want || asked != tc.asked {
			t.Errorf("case %d: %v (closed asked %v), want %v (asked %v)", i, got, asked, tc.want, tc.asked)
		}
	}
}
