package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// AddEphemeralContainer adds an ephemeral container to the running pod and starts it
// (`kubectl debug`). It returns once its process has started, or with the error that kept it
// from starting: a *ValidationError for a spec the API server would refuse, or a
// *PodSecurityError for one the Config's Pod Security level refuses (the pod is then
// unchanged), ErrPodStopping if the pod is stopping or ended, or a *StartError; once its
// validation passed, the container is in the pod's EphemeralContainerStatuses, even if it
// failed to start, and its name stays taken (Kubernetes never removes an ephemeral container).
//
// It is never restarted, whatever the pod's restart policy; it does not count in the pod's
// phase, conditions or readiness; the pod's stop stops it (preStop does not apply) and Remove
// removes it. If ctx ends first, the container goes on starting and the call returns ctx's
// error.
func (p *Worker) AddEphemeralContainer(ctx context.Context, spec EphemeralContainerSpec) (*Container, error) {
	select {
	case <-p.started:
		if p.startErr != nil {
			return nil, fmt.Errorf("pod %q did not start: %w", p.name, p.startErr)
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if p.host.IsClosed() {
		return nil, fmt.Errorf("pod %q: %w", p.name, ErrClosed)
	}
	spec = api.EphemeralWithDefaults(spec) // admission: defaults, then validation (on the loop, below)
	cs := spec.ContainerSpec
	c := &Container{pod: p, spec: &cs, ephemeral: true, targetName: spec.TargetContainerName,
		stdin: spec.Stdin, tty: spec.TTY,
		plannedID: NewID(), prepared: make(chan struct{}),
		state: ContainerState{Waiting: &StateWaiting{Reason: ReasonContainerCreating}}}
	err := fmt.Errorf("pod %q: %w", p.name, ErrClosed) // unless the loop runs the closure
	done := make(chan error, 1)
	p.updateIf(func() bool {
		if p.stopping || p.terminated || p.phase == PhaseSucceeded || p.phase == PhaseFailed {
			err = fmt.Errorf("pod %q: add ephemeral container %q: %w", p.name, cs.Name, ErrPodStopping)
			return false
		}
		if err = p.validateEphemeralOwned(&spec); err != nil {
			return false
		}
		p.ephemerals = append(p.ephemerals, c)
		// Spawned on the loop, which orders it with the stop's wait (awaitRestarts).
		p.spawn(gEphemeral, func() {
			c.prepare(leasedCtx(p.startCtx, p))
			done <- c.start(p.startCtx)
		})
		return true
	})
	if err != nil {
		return nil, err
	}
	select {
	case err := <-done:
		if err != nil && p.isStopping() {
			return c, fmt.Errorf("pod %q: ephemeral container %q: %w (%w)", p.name, cs.Name, ErrPodStopping, err)
		}
		return c, err
	case <-ctx.Done():
		return c, ctx.Err()
	}
}

// validateEphemeralOwned (on the loop) checks an ephemeral container's spec as the API server's
// validateEphemeralContainers does, at path spec.ephemeralContainers[i], and against what the
// runtime's Config allows. It runs on the pod's loop.
func (p *Worker) validateEphemeralOwned(spec *EphemeralContainerSpec) error {
	path := field.NewPath("spec", "ephemeralContainers").Index(len(p.ephemerals))
	c := &spec.ContainerSpec
	names := map[string]bool{}
	for name := range p.byName {
		names[name] = true
	}
	for _, e := range p.ephemerals {
		names[e.spec.Name] = true
	}
	volumes := map[string]bool{}
	for _, v := range p.spec.Volumes {
		volumes[v.Name] = true
	}
	errs := api.ValidateContainer(path, c, volumes, names, map[string]bool{})
	forbid := func(set bool, p *field.Path) {
		if set {
			errs = append(errs, field.Forbidden(p, "cannot be set for an Ephemeral Container"))
		}
	}
	forbid(len(c.Ports) > 0, path.Child("ports"))
	forbid(c.PostStart != nil || c.PreStop != nil || c.HookTimeout != 0 || c.StopSignal != 0, path.Child("lifecycle"))
	forbid(c.LivenessProbe != nil, path.Child("livenessProbe"))
	forbid(c.ReadinessProbe != nil, path.Child("readinessProbe"))
	forbid(c.StartupProbe != nil, path.Child("startupProbe"))
	forbid(c.Resources != (Resources{}), path.Child("resources"))
	forbid(c.RestartPolicy != "", path.Child("restartPolicy"))
	forbid(len(c.RestartPolicyRules) > 0, path.Child("restartPolicyRules"))
	forbid(len(c.DependsOn) > 0, path.Child("dependsOn"))
	for i, m := range c.VolumeMounts {
		forbid(m.SubPath != "", path.Child("volumeMounts").Index(i).Child("subPath"))
	}
	if t := spec.TargetContainerName; t != "" {
		if _, ok := p.byName[t]; !ok {
			errs = append(errs, field.NotFound(path.Child("targetContainerName"), t))
		}
	}
	sp := path.Child("securityContext")
	errs = append(errs, api.ValidateContainerSecurity(sp, &p.spec, c)...)
	errs = append(errs, p.host.AdmitContainerSecurity(sp, c.SecurityContext)...)
	if len(errs) > 0 {
		return &ValidationError{Pod: p.name, Errs: errs}
	}
	// The API server's PodSecurity admission checks the pod with its new ephemeral container.
	ephemerals := make([]ContainerSpec, 0, len(p.ephemerals)+1)
	for _, e := range p.ephemerals {
		ephemerals = append(ephemerals, *e.spec)
	}
	return p.host.AdmitPodSecurity(&p.spec, append(ephemerals, *c))
}

// targetPIDNamespace pins the PID namespace of the target's current process and returns the
// pin's path, which the ephemeral container joins: the pin is checked to hold the target's
// namespace (its PID may have been reused), and unpinTarget removes it once the container's
// task is created (runc has joined the namespace then).
func (c *Container) targetPIDNamespace() (string, error) {
	p := c.pod
	t, ok := p.byName[c.targetName]
	if !ok {
		return "", fmt.Errorf("target container %q: %w", c.targetName, ErrNotFound)
	}
	var inst *instance
	var task tasks.Task
	p.do(func() {
		if t.cur != nil && t.cur.running {
			inst, task = t.cur, t.cur.task
		}
	})
	if inst == nil || task == nil {
		return "", fmt.Errorf("target container %q is not running", c.targetName)
	}
	select {
	case <-inst.exited:
		return "", fmt.Errorf("target container %q is not running", c.targetName)
	default:
	}
	// The pin checks that the PID still is the target's (it may have exited meanwhile).
	pid := task.PID()
	if pid == 0 {
		return "", fmt.Errorf("target container %q: no process", c.targetName)
	}
	dir := filepath.Join(p.sandbox.Dir(), "ns", "target-"+c.plannedID)
	path, err := p.host.Tasks.PinContainerNamespace(dir, sandboxns.PID, int(pid), p.containerCgroup(inst.id))
	if err != nil {
		return "", fmt.Errorf("target container %q: join its PID namespace: %w", c.targetName, err)
	}
	c.targetPin = dir
	return path, nil
}

// unpinTarget removes the pin of the target's PID namespace, if any.
func (c *Container) unpinTarget() {
	if c.targetPin == "" {
		return
	}
	err := c.pod.host.Tasks.UnpinNamespaces(c.targetPin)
	if err == nil {
		err = os.Remove(c.targetPin)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.pod.log.Warn("target's PID namespace left pinned", "container", c.spec.Name, "err", err)
	}
	c.targetPin = ""
}

// ephemeralPIDOpts is the PID namespace of an ephemeral container: the pod's if it shares one
// (specOpts has set it), else its target's, else a new one.
func (c *Container) ephemeralPIDOpts() ([]oci.SpecOpts, error) {
	p := c.pod
	if c.targetName == "" || p.spec.HostPID || p.spec.ShareProcessNamespace {
		return nil, nil
	}
	ns, err := c.targetPIDNamespace()
	if err != nil {
		return nil, err
	}
	return []oci.SpecOpts{oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.PIDNamespace, Path: ns})}, nil
}

// allContainers returns every container of the pod: init, app and ephemeral.
func (p *Worker) allContainers() []*Container {
	out := make([]*Container, 0, len(p.byName))
	for _, c := range p.byName {
		out = append(out, c)
	}
	if !p.do(func() { out = append(out, p.ephemerals...) }) {
		out = append(out, p.view().ephemerals...)
	}
	return out
}
