package ephemeral

import (
	"iter"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Pod is the running pod a new ephemeral container is checked against: values the worker
// reads on its loop.
type Pod struct {
	Name string
	Spec *api.PodSpec
	// Containers names the pod's init and app containers; Ephemerals are its ephemeral
	// containers' specs, in the order they were added.
	Containers iter.Seq[string]
	Ephemerals []api.ContainerSpec
	// AdmitContainerSecurity and AdmitPodSecurity are the Runtime's admission checks.
	AdmitContainerSecurity func(path *field.Path, sc *api.SecurityContext) field.ErrorList
	AdmitPodSecurity       func(spec *api.PodSpec, ephemerals []api.ContainerSpec) error
}

// Validate checks an ephemeral container's spec (defaults applied) as the API server's
// validateEphemeralContainers does, at path spec.ephemeralContainers[i], and against what the
// Runtime's Config allows: a *api.ValidationError, or the Pod Security admission's error for
// the pod with its new ephemeral container.
func Validate(pod Pod, spec *api.EphemeralContainerSpec) error {
	path := field.NewPath("spec", "ephemeralContainers").Index(len(pod.Ephemerals))
	c := &spec.ContainerSpec
	names, containers := map[string]bool{}, map[string]bool{}
	for name := range pod.Containers {
		names[name], containers[name] = true, true
	}
	for _, e := range pod.Ephemerals {
		names[e.Name] = true
	}
	volumes := map[string]bool{}
	for _, v := range pod.Spec.Volumes {
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
	forbid(c.Resources != (api.Resources{}), path.Child("resources"))
	forbid(c.RestartPolicy != "", path.Child("restartPolicy"))
	forbid(len(c.RestartPolicyRules) > 0, path.Child("restartPolicyRules"))
	forbid(len(c.DependsOn) > 0, path.Child("dependsOn"))
	for i, m := range c.VolumeMounts {
		forbid(m.SubPath != "", path.Child("volumeMounts").Index(i).Child("subPath"))
	}
	if t := spec.TargetContainerName; t != "" && !containers[t] {
		errs = append(errs, field.NotFound(path.Child("targetContainerName"), t))
	}
	sp := path.Child("securityContext")
	errs = append(errs, api.ValidateContainerSecurity(sp, pod.Spec, c)...)
	errs = append(errs, pod.AdmitContainerSecurity(sp, c.SecurityContext)...)
	if len(errs) > 0 {
		return &api.ValidationError{Pod: pod.Name, Errs: errs}
	}
	// The API server's PodSecurity admission checks the pod with its new ephemeral container.
	return pod.AdmitPodSecurity(pod.Spec, append(pod.Ephemerals[:len(pod.Ephemerals):len(pod.Ephemerals)], *c))
}
