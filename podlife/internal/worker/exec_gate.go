package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/execgate"
	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/ctrd"
)

// gateWait bounds the wait for a gated process to reach its gate.
const gateWait = 30 * time.Second

// gatesExec reports whether the container, of a warm pool member being made, is made behind the
// exec gate (Config.ExecGate, see internal/execgate): its task is started when the member is
// made, its process waits in the gate, and the pod's start releases it. Not with a Localhost
// seccomp profile: the gate (a Go program) runs under the container's filter before the
// command does, and only the default profile is known to let it.
func (c *Container) gatesExec() bool {
	p := c.pod
	if p.warm == nil || p.host.Cfg.ExecGate == "" || c.ephemeral {
		return false
	}
	var prof *SeccompProfile
	if sc := p.spec.SecurityContext; sc != nil {
		prof = sc.SeccompProfile
	}
	if sc := c.spec.SecurityContext; sc != nil && sc.SeccompProfile != nil {
		prof = sc.SeccompProfile
	}
	return prof == nil || prof.Type != SeccompLocalhost
}

// newGatedInstance makes attempt n of the container behind the exec gate: created with the
// gate as its process, started, and returned once the gate waits on its FIFO. Its start is
// then the gate's release (startInstance). A gate that exits first fails it (the instance is
// deleted), with the gate's reason in the container's log.
func (c *Container) newGatedInstance(ctx context.Context, n int, id string) (*instance, error) {
	p := c.pod
	fifo, err := execgate.NewFIFO(filepath.Join(p.sandbox.Dir(), execgate.FIFOName(id)))
	if err != nil {
		return nil, err
	}
	binary := p.host.Cfg.ExecGate
	inst, err := c.newInstanceWith(ctx, n, id, func(s *specs.Spec) error { return fifo.Wrap(s, binary) })
	if err != nil {
		fifo.Close()
		return nil, err
	}
	inst.gate, inst.streams = fifo, append(inst.streams, fifo) // closed with the instance's log
	if err := c.openGate(ctx, inst); err != nil {
		if derr := inst.delete(context.WithoutCancel(ctx)); derr != nil {
			p.log.Warn("exec gate: delete the instance", "container", c.spec.Name, "err", derr)
		}
		return nil, fmt.Errorf("container %q: %w", c.spec.Name, err)
	}
	failpoint.Hit("pool.gate-waits") // this container's gate waits on its FIFO, podlife's end open
	return inst, nil
}

// releaseGate is the start of a gated instance (its task runs; its gate waits): the release
// of its gate (see execgate.FIFO.Release).
func releaseGate(inst *instance) func(context.Context) error {
	return func(ctx context.Context) error {
		failpoint.Hit("take.gate-release") // @2: the first container released, the second not
		err := inst.gate.Release(ctx)
		failpoint.Hit("take.gate-released") // its FIFO removed, the start byte read (or written)
		return err
	}
}

// openGate starts a gated instance's task and waits until its process waits on the gate. An
// exit seen meanwhile stays the instance's (inst.exitCh gets it again).
func (c *Container) openGate(ctx context.Context, inst *instance) error {
	if err := inst.task.Start(ctx); err != nil {
		return fmt.Errorf("start the exec gate: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, gateWait)
	defer cancel()
	var exit *ctrd.ExitStatus
	err := inst.gate.Wait(ctx, func() bool {
		select {
		case st := <-inst.exitCh:
			exit = &st
			return true
		default:
			return false
		}
	})
	if exit != nil {
		ch := make(chan ctrd.ExitStatus, 1)
		ch <- *exit
		inst.exitCh = ch
		if errors.Is(err, execgate.ErrGateExited) {
			err = fmt.Errorf("%w with code %d (its reason is in the container's log)", err, exit.ExitCode())
		}
	}
	return err
}
