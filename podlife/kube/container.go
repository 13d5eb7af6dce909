package kube

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube/internal/env"
	"github.com/podlife/podlife/podlife/restartrule"
)

// container converts a container or init container; i is its index in the list.
func (c *converter) container(ct *corev1.Container, list string, i int) podlife.ContainerSpec {
	p := c.specPath.Child(list).Index(i)
	pl := fmt.Sprintf("spec.%s[%d]", list, i)
	out := podlife.ContainerSpec{
		Name:            ct.Name,
		Image:           ct.Image,
		ImagePullPolicy: podlife.PullPolicy(ct.ImagePullPolicy),
		WorkingDir:      ct.WorkingDir,
	}
	env, e, stopped := c.envs.Env(ct, p, pl)
	out.Env = env
	if !stopped {
		// command and args share the room of the process's start with the environment.
		room := MaxContainerEnvironment - e.Size()
		var used int
		var ok bool
		if out.Command, used, ok = c.x.List(p.Child("command"), ct.Command, c.envs.Lookup(p.Child("command"), e), room); ok {
			out.Args, _, _ = c.x.List(p.Child("args"), ct.Args, c.envs.Lookup(p.Child("args"), e), room-used)
		}
	}
	out.Ports = c.ports(ct, p, list == "containers")
	out.VolumeMounts = c.mounts(ct, p, pl, e)
	out.Resources = c.resources(&ct.Resources, p.Child("resources"), false)
	out.ResizePolicy = resizePolicy(ct.ResizePolicy)
	out.StartupProbe = c.probe(ct, ct.StartupProbe, p.Child("startupProbe"))
	out.ReadinessProbe = c.probe(ct, ct.ReadinessProbe, p.Child("readinessProbe"))
	out.LivenessProbe = c.probe(ct, ct.LivenessProbe, p.Child("livenessProbe"))
	if lc := ct.Lifecycle; lc != nil {
		lp := p.Child("lifecycle")
		out.PostStart = c.handler(ct, lc.PostStart, lp.Child("postStart"))
		out.PreStop = c.handler(ct, lc.PreStop, lp.Child("preStop"))
		if lc.StopSignal != nil {
			out.StopSignal = c.stopSignal(lp.Child("stopSignal"), *lc.StopSignal)
		}
	}
	if ct.RestartPolicy != nil {
		out.RestartPolicy = podlife.RestartPolicy(*ct.RestartPolicy)
	}
	for _, r := range ct.RestartPolicyRules {
		rule := restartrule.Rule{Action: restartrule.Action(r.Action)}
		if r.ExitCodes != nil {
			rule.ExitCodes = &restartrule.OnExitCodes{
				Operator: restartrule.Operator(r.ExitCodes.Operator),
				Values:   slices.Clone(r.ExitCodes.Values)}
		}
		out.RestartPolicyRules = append(out.RestartPolicyRules, rule)
	}
	out.SecurityContext = containerSecurity(ct.SecurityContext)
	// The API's defaults stay empty: podlife applies them (see podlife.PodSpec.WithDefaults).
	if ct.TerminationMessagePath != corev1.TerminationMessagePathDefault {
		out.TerminationMessagePath = ct.TerminationMessagePath
	}
	if ct.TerminationMessagePolicy == corev1.TerminationMessageFallbackToLogsOnError {
		out.TerminationMessagePolicy = podlife.TerminationMessageFallbackToLogsOnError
	}
	return out
}

// ports converts the container's ports; with hostNetwork the host port defaults to the
// container port (the protocol's default is podlife's: see podlife.PodSpec.WithDefaults). app tells an app container, whose host ports the API
// server wants equal to the container ports with hostNetwork (validatePodHostNetworkDeps).
func (c *converter) ports(ct *corev1.Container, p *field.Path, app bool) []podlife.ContainerPort {
	var out []podlife.ContainerPort
	for j, cp := range ct.Ports {
		pp := p.Child("ports").Index(j)
		if c.src.spec.HostNetwork {
			// The API defaults hostPort to containerPort in the host's network, and wants
			// them equal.
			if cp.HostPort == 0 {
				cp.HostPort = cp.ContainerPort
			} else if app && cp.HostPort != cp.ContainerPort {
				c.is.Field(field.Invalid(pp.Child("hostPort"), cp.HostPort, "must match `containerPort` when `hostNetwork` is true"))
			}
		}
		if cp.HostIP != "" {
			for _, fe := range validation.IsValidIP(pp.Child("hostIP"), cp.HostIP) {
				c.is.Field(fe)
			}
		}
		out = append(out, podlife.ContainerPort{
			Name:          cp.Name,
			ContainerPort: c.port16(pp.Child("containerPort"), cp.ContainerPort),
			HostPort:      c.port16(pp.Child("hostPort"), cp.HostPort),
			HostIP:        cp.HostIP,
			Protocol:      podlife.Protocol(cp.Protocol),
		})
	}
	return out
}

// port16 checks a port number; zero is left for validation to judge.
func (c *converter) port16(p *field.Path, n int32) uint16 {
	if n < 0 || n > 65535 {
		c.is.Field(field.Invalid(p, n, "must be between 1 and 65535, inclusive"))
		return 0
	}
	return uint16(n)
}

// mounts converts the container's volume mounts, expanding subPathExpr with its environment.
func (c *converter) mounts(ct *corev1.Container, p *field.Path, pl string, e *env.Environment) []podlife.VolumeMount {
	var out []podlife.VolumeMount
	for j, m := range ct.VolumeMounts {
		mp := p.Child("volumeMounts").Index(j)
		sub := m.SubPath
		if m.SubPathExpr != "" {
			sp := mp.Child("subPathExpr")
			if m.SubPath != "" {
				c.is.Field(field.Invalid(sp, m.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			} else {
				sub = c.envs.SubPathExpr(sp, m.SubPathExpr, e)
				c.mapPath(fmt.Sprintf("%s.volumeMounts[%d].subPath", pl, j), sp)
			}
		}
		out = append(out, podlife.VolumeMount{Name: m.Name, MountPath: m.MountPath, SubPath: sub, ReadOnly: m.ReadOnly})
	}
	return out
}

// resources converts limits and requests: CPU in millicores, memory and a container's
// ephemeral storage in bytes. A CPU request defaults to the limit, as the API defaults
// requests to limits. pod says they are the pod-level resources, where ephemeral storage is
// not a pod-level resource of Kubernetes (a warning).
func (c *converter) resources(r *corev1.ResourceRequirements, p *field.Path, pod bool) podlife.Resources {
	var out podlife.Resources
	limits := map[corev1.ResourceName]int64{}
	for _, name := range resourceNames(r.Limits) {
		q, lp := r.Limits[name], p.Child("limits").Key(string(name))
		switch {
		case q.Sign() < 0:
			// The API defaults a missing request to the limit, and then refuses both.
			c.is.Field(field.Invalid(lp, q.String(), "must be greater than or equal to 0"))
			if _, ok := r.Requests[name]; !ok {
				c.is.Field(field.Invalid(p.Child("requests").Key(string(name)), q.String(), "must be greater than or equal to 0"))
			}
		case name == corev1.ResourceCPU:
			if n, ok := c.quantity(lp, &q, true); ok {
				out.CPULimit, limits[name] = n, n
			}
		case name == corev1.ResourceMemory:
			if n, ok := c.quantity(lp, &q, false); ok {
				out.MemoryLimit, limits[name] = n, n
			}
		case name == corev1.ResourceEphemeralStorage && pod:
			c.is.Warnf(lp, "Not honoured: pod-level resources limit cpu and memory; each container's ephemeral-storage limit bounds the pod's total")
		case name == corev1.ResourceEphemeralStorage:
			if n, ok := c.quantity(lp, &q, false); ok {
				out.EphemeralStorageLimit, limits[name] = n, n
			}
		default:
			c.is.Errorf(lp, "Forbidden: not supported by podlife: %s", resourceNote(name))
		}
	}
	for _, name := range resourceNames(r.Requests) {
		q, rp := r.Requests[name], p.Child("requests").Key(string(name))
		var n int64
		var ok bool
		switch {
		case q.Sign() < 0:
			c.is.Field(field.Invalid(rp, q.String(), "must be greater than or equal to 0"))
		case name == corev1.ResourceCPU:
			if n, ok = c.quantity(rp, &q, true); ok {
				out.CPURequest = n
			}
		case name == corev1.ResourceMemory && !pod:
			if n, ok = c.quantity(rp, &q, false); ok {
				out.MemoryRequest = n // no cgroup value: the QoS class a resize keeps
			}
		case name == corev1.ResourceMemory, name == corev1.ResourceEphemeralStorage:
			n, ok = c.quantity(rp, &q, false) // it only steers scheduling
		default:
			c.is.Errorf(rp, "Forbidden: not supported by podlife: %s", resourceNote(name))
		}
		if l, limited := limits[name]; ok && limited && n > l {
			// The API server reports it at requests, not at the resource's key.
			c.is.Field(field.Invalid(p.Child("requests"), q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, limitString(r, name))))
		}
	}
	if _, ok := r.Requests[corev1.ResourceCPU]; !ok {
		out.CPURequest = out.CPULimit
	}
	return out
}

func limitString(r *corev1.ResourceRequirements, name corev1.ResourceName) string {
	q := r.Limits[name]
	return q.String()
}

// resourceNote says why a resource is not supported.
func resourceNote(name corev1.ResourceName) string {
	if strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
		return "hugepages are not supported"
	}
	return fmt.Sprintf("resource %q: podlife allocates no devices or extended resources", name)
}

// resourceNames returns the names of a resource list, sorted.
func resourceNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}
