package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
)

// The pod's sandbox and shims are made and undone by package podsandbox; the worker decides
// when, and its loop records the outcome: the network's attachment and IP (podNet), the
// pause's handles (pauseState), the failure of the pod when its pause exits (watchPause).

// podNet is the pod's loop's record of its network attachment, as its sandbox reports it.
type podNet struct{ p *Worker }

func (n podNet) SetAttached(v bool) { n.p.do(func() { n.p.netAttached = v }) }

func (n podNet) Attached() (v bool) {
	n.p.do(func() { v = n.p.netAttached })
	return v
}

func (n podNet) SetIP(ip netip.Addr) { n.p.update(func() { n.p.podIP = ip }) }

func (n podNet) IP() netip.Addr {
	if v := n.p.view(); v != nil {
		return v.status.PodIP
	}
	return netip.Addr{}
}

// shimStarter is a container as the pod's shim start sees it (podsandbox.Starter).
type shimStarter struct{ c *Container }

func (s shimStarter) Prepared() <-chan struct{} { return s.c.prepared }
func (s shimStarter) ConfigFailed() bool        { return errors.Is(s.c.prepErr, ErrCreateContainerConfig) }
func (s shimStarter) Name() string              { return s.c.spec.Name }

// withShim runs fn, the NewTask of container c, once the pod's shim may be started by it or
// answers (see podsandbox.Shim.Start).
func (p *Worker) withShim(ctx context.Context, c *Container, fn func() error) error {
	return p.shim.Start(ctx, p.log, shimStarter{c}, fn)
}

// shimGroup is the runc shim group of the pod's containers (see podsandbox.Shim.Group).
func (p *Worker) shimGroup() string { return p.shim.Group() }

// leasedCtx makes containerd keep what is created under ctx as the pod's (until Remove).
func leasedCtx(ctx context.Context, p *Worker) context.Context { return p.sandbox.Leased(ctx) }

// containerCgroup is the cgroup of the pod's container id (see podsandbox.Sandbox.ContainerCgroup).
func (p *Worker) containerCgroup(id string) string {
	return p.sandbox.ContainerCgroup(p.spec.Resources, id)
}

// podLabels is what the pod's containerd containers are labelled with.
func (p *Worker) podLabels() podsandbox.PodLabels {
	return podsandbox.PodLabels{Pod: p.name, UID: p.uid, Namespace: p.spec.Namespace, StateDir: p.host.Cfg.StateDir, Labels: p.spec.Labels}
}

func (p *Worker) labels(c *Container) map[string]string {
	return p.podLabels().For(c.spec.Name, podsandbox.KindOf(c.init, c.ephemeral))
}

// createSandbox makes the pod's sandbox (see podsandbox.Sandbox.Create), the pod's fsGroup
// applied to its volumes.
func (p *Worker) createSandbox() error {
	return p.sandbox.Create(&p.spec, func(dir string, files bool) error { return applyFSGroup(&p.spec, dir, files) })
}

// pause is a pod's pause container and task. Its fields are owned by the pod's loop.
type pause struct {
	id   string
	ctr  tasks.Container // nil until created, and once deleted
	task tasks.Task      // nil until created, and once deleted
}

// pauseState runs f on the pod's loop with the pause's handles (a podsandbox.PauseState).
func (p *Worker) pauseState(f func(ctr *tasks.Container, task *tasks.Task)) bool {
	return p.do(func() { f(&p.pause.ctr, &p.pause.task) })
}

// startPause creates and starts the pod's pause (see podsandbox.Sandbox.StartPause) and
// watches it. On failure what it made stays for stopPause to delete.
func (p *Worker) startPause(ctx context.Context) error {
	bin, err := p.host.PauseBinary()
	if err != nil {
		return err
	}
	pc := podsandbox.Pause{ID: p.pause.id, Handler: p.handler, Binary: bin, Labels: p.podLabels().Pause(),
		Namespaces: p.sharedNamespaceOpts(), ShimGroup: p.shimGroup()}
	exited, err := p.sandbox.StartPause(ctx, p.watchCtx, pc, p.pauseState, p.log)
	if err != nil {
		return err
	}
	p.spawn(gPauseWatch, func() { p.watchPause(exited) })
	return nil
}

// watchPause fails the pod if its pause exits before a stop: its PID namespace, and every
// process in it, is gone, and no container could join it again. (The kubelet recreates the
// sandbox and restarts the containers; podlife stops the pod, which ends Failed with reason
// SandboxChanged.) While containerd is away the watch waits for it, then follows the task
// again; the Runtime's Close ends it.
func (p *Worker) watchPause(exited <-chan ctrd.ExitStatus) {
	conn := podsandbox.Conn{Retry: p.host.Retry, WaitConnected: p.host.WaitConnected}
	st, ok, err := podsandbox.FollowPause(p.watchCtx, conn, exited, p.pauseState)
	if err != nil {
		p.log.Warn("pause no longer watched", "err", err)
	}
	if !ok || p.host.IsClosed() {
		return
	}
	msg := fmt.Sprintf("the pod's pause process exited (code %d): its PID namespace is gone with every process in it; stopping the pod", st.ExitCode())
	failed := false
	p.updateIf(func() bool {
		if failed = !p.stopping; failed {
			p.failReason, p.reason, p.message = ReasonSandboxChanged, ReasonSandboxChanged, msg
		}
		return failed
	})
	if !failed {
		return
	}
	p.log.Warn("pause exited", "code", st.ExitCode())
	p.emit("", EventWarning, ReasonSandboxChanged, msg)
	p.stopWith(p.lifeCtx, GracePeriod(&p.spec), true, nil)
}

// stopPause deletes the pause (see podsandbox.StopPause) and records what is gone. It is
// idempotent; the pod's containers' tasks must be deleted first.
func (p *Worker) stopPause(ctx context.Context) error {
	if p.pause == nil {
		return nil
	}
	return podsandbox.StopPause(ctx, p.host.Retry, p.pauseState)
}

// newSandbox is the sandbox and shim choice of a pod being assembled in dir (nothing made yet).
func (p *Worker) newSandbox(dir string) {
	r := p.host
	p.sandbox = podsandbox.New(dir, p.uid, r.Cfg.Namespace, p.spec.Hostname, r.Tasks, podNet{p})
	pauseID := ""
	if p.pause != nil {
		pauseID = p.pause.id
	}
	p.shim = podsandbox.NewShim(podsandbox.ShimConfig{Tasks: r.Tasks, Groups: r.ShimGroups, Address: r.Address,
		Namespace: r.Cfg.Namespace, PerContainer: r.Cfg.ShimPerContainer, Shared: r.Cfg.ShimShared},
		p.uid, shimStarter{p.shimOwner}, p.shimOwner.plannedID, pauseID)
}
