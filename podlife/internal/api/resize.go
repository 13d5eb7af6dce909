package api

import (
	"errors"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ErrResizeNotNow: a resize that is valid cannot be actuated now (a memory limit below the
// container's current usage, as the kubelet refuses it); it may succeed later.
var ErrResizeNotNow = errors.New("podlife: resize not possible now")

// ReasonResized is the event of a container resized (Pod.Resize).
const ReasonResized Reason = "Resized"

// ResizeRestartPolicy says whether resizing one resource of a running container restarts it
// (Kubernetes' ResourceResizeRestartPolicy).
type ResizeRestartPolicy string

// Resize restart policies.
const (
	// ResizeNotRequired: the running container's cgroup is updated in place (the default).
	ResizeNotRequired ResizeRestartPolicy = "NotRequired"
	// ResizeRestartContainer: the container is restarted with the new resources.
	ResizeRestartContainer ResizeRestartPolicy = "RestartContainer"
)

// ResizePolicy is a container's resize policy per resource (Kubernetes' resizePolicy); an
// empty policy is ResizeNotRequired.
type ResizePolicy struct {
	CPU    ResizeRestartPolicy `json:",omitempty"`
	Memory ResizeRestartPolicy `json:",omitempty"`
}

// QOSClass is a pod's quality-of-service class, as Kubernetes derives it from its requests
// and limits.
type QOSClass string

// QoS classes.
const (
	QOSGuaranteed QOSClass = "Guaranteed"
	QOSBurstable  QOSClass = "Burstable"
	QOSBestEffort QOSClass = "BestEffort"
)

// Restarts reports whether changing the running container's resources from cur to next
// restarts it under this policy: the policy of a resource whose request or limit changes is
// RestartContainer.
func (p ResizePolicy) Restarts(cur, next Resources) bool {
	cpu := cur.CPULimit != next.CPULimit || cur.CPURequest != next.CPURequest
	mem := cur.MemoryLimit != next.MemoryLimit || cur.effectiveMemoryRequest() != next.effectiveMemoryRequest()
	return cpu && p.CPU == ResizeRestartContainer || mem && p.Memory == ResizeRestartContainer
}

// effectiveMemoryRequest is the memory request as the API server defaults it: the limit if
// unset.
func (r Resources) effectiveMemoryRequest() int64 {
	if r.MemoryRequest == 0 {
		return r.MemoryLimit
	}
	return r.MemoryRequest
}

func (r Resources) effectiveCPURequest() int64 {
	if r.CPURequest == 0 {
		return r.CPULimit
	}
	return r.CPURequest
}

// PodQOS is the QoS class of pod s whose containers (init containers included) have the
// resources of res (by name; a container missing from it has its spec's), as Kubernetes'
// GetPodQOS computes it: pod-level resources, when set, decide alone; else Guaranteed when
// every container has CPU and memory limits equal to its requests, BestEffort when none has
// any request or limit, Burstable otherwise.
func PodQOS(s *PodSpec, res map[string]Resources) QOSClass {
	all := make([]Resources, 0, len(s.InitContainers)+len(s.Containers))
	if s.Resources.CPULimit != 0 || s.Resources.CPURequest != 0 || s.Resources.MemoryLimit != 0 || s.Resources.MemoryRequest != 0 {
		all = append(all, s.Resources)
	} else {
		for _, cs := range [][]ContainerSpec{s.InitContainers, s.Containers} {
			for _, c := range cs {
				r, ok := res[c.Name]
				if !ok {
					r = c.Resources
				}
				all = append(all, r)
			}
		}
	}
	guaranteed, set := true, false
	for _, r := range all {
		cpu, mem := r.effectiveCPURequest(), r.effectiveMemoryRequest()
		if cpu != 0 || mem != 0 || r.CPULimit != 0 || r.MemoryLimit != 0 {
			set = true
		}
		if r.CPULimit == 0 || r.MemoryLimit == 0 || cpu != r.CPULimit || mem != r.MemoryLimit {
			guaranteed = false
		}
	}
	switch {
	case !set:
		return QOSBestEffort
	case guaranteed:
		return QOSGuaranteed
	}
	return QOSBurstable
}

// CheckResize checks the resize of the container name of the running pod s to next, its
// containers having the resources of cur (see PodQOS), with the API server's resize rules
// (ValidatePodResize) and the kubelet's: only an app container or a sidecar (a restartable
// init container) is resized; only CPU and memory change; no value is negative, no request
// above its limit; a limit or a request set is not removed; the pod's QoS class is unchanged;
// the container's limits stay within the pod-level ones. The kubelet's check of a memory limit
// decrease against the container's usage needs the running container: the caller does it.
func CheckResize(s *PodSpec, cur map[string]Resources, name string, next Resources) field.ErrorList {
	var p *field.Path
	var spec *ContainerSpec
	for i := range s.Containers {
		if s.Containers[i].Name == name {
			p, spec = field.NewPath("spec", "containers").Index(i), &s.Containers[i]
		}
	}
	for i := range s.InitContainers {
		if s.InitContainers[i].Name == name {
			p, spec = field.NewPath("spec", "initContainers").Index(i), &s.InitContainers[i]
			if spec.RestartPolicy != RestartAlways {
				return field.ErrorList{field.Forbidden(p.Child("resources"), "only a sidecar (restartPolicy Always) init container may be resized")}
			}
		}
	}
	if spec == nil {
		return field.ErrorList{field.NotFound(field.NewPath("spec", "containers").Key(name), name)}
	}
	old, ok := cur[name]
	if !ok {
		old = spec.Resources
	}
	rp := p.Child("resources")
	var errs field.ErrorList
	for _, f := range []struct {
		path string
		v    int64
	}{{"limits.cpu", next.CPULimit}, {"requests.cpu", next.CPURequest}, {"limits.memory", next.MemoryLimit}, {"requests.memory", next.MemoryRequest}} {
		if f.v < 0 {
			errs = append(errs, field.Invalid(rp.Child(f.path), f.v, "must be greater than or equal to 0"))
		}
	}
	if next.EphemeralStorageLimit != old.EphemeralStorageLimit {
		errs = append(errs, field.Forbidden(rp.Child("limits").Key("ephemeral-storage"), "only cpu and memory resources are mutable"))
	}
	if next.CPULimit > 0 && next.CPURequest > next.CPULimit {
		errs = append(errs, field.Invalid(rp.Child("requests").Key("cpu"), cpuString(next.CPURequest), "must be less than or equal to cpu limit of "+cpuString(next.CPULimit)))
	}
	if next.MemoryLimit > 0 && next.MemoryRequest > next.MemoryLimit {
		errs = append(errs, field.Invalid(rp.Child("requests").Key("memory"), memString(next.MemoryRequest), "must be less than or equal to memory limit of "+memString(next.MemoryLimit)))
	}
	for _, f := range []struct {
		path      string
		was, is   int64
		what, res string
	}{
		{"limits", old.CPULimit, next.CPULimit, "limits", "cpu"},
		{"limits", old.MemoryLimit, next.MemoryLimit, "limits", "memory"},
		{"requests", old.CPURequest, next.CPURequest, "requests", "cpu"},
		{"requests", old.MemoryRequest, next.MemoryRequest, "requests", "memory"},
	} {
		if f.was != 0 && f.is == 0 {
			errs = append(errs, field.Forbidden(rp.Child(f.path).Key(f.res), "resource "+f.what+" cannot be removed"))
		}
	}
	if l := s.Resources.CPULimit; l > 0 && next.CPULimit > l {
		errs = append(errs, field.Invalid(rp.Child("limits").Key("cpu"), cpuString(next.CPULimit), "must be less than or equal to pod limits of "+cpuString(l)))
	}
	if l := s.Resources.MemoryLimit; l > 0 && next.MemoryLimit > l {
		errs = append(errs, field.Invalid(rp.Child("limits").Key("memory"), memString(next.MemoryLimit), "must be less than or equal to pod limits of "+memString(l)))
	}
	if len(errs) > 0 {
		return errs
	}
	after := make(map[string]Resources, len(cur)+1)
	for k, v := range cur {
		after[k] = v
	}
	after[name] = next
	if was, is := PodQOS(s, cur), PodQOS(s, after); was != is {
		errs = append(errs, field.Invalid(rp, string(is), "Pod QOS Class may not change as a result of resizing (from "+string(was)+")"))
	}
	return errs
}

// validateResizeFields checks a container's memory request (not negative, within the limit)
// and its resize policy's values.
func validateResizeFields(p *field.Path, c *ContainerSpec) field.ErrorList {
	var errs field.ErrorList
	r := c.Resources
	if r.MemoryRequest < 0 {
		errs = append(errs, field.Invalid(p.Child("resources", "requests.memory"), r.MemoryRequest, "must be greater than or equal to 0"))
	}
	if r.MemoryLimit > 0 && r.MemoryRequest > r.MemoryLimit {
		errs = append(errs, field.Invalid(p.Child("resources", "requests"), memString(r.MemoryRequest), "must be less than or equal to memory limit of "+memString(r.MemoryLimit)))
	}
	for _, rp := range []struct {
		name string
		v    ResizeRestartPolicy
	}{{"cpu", c.ResizePolicy.CPU}, {"memory", c.ResizePolicy.Memory}} {
		switch rp.v {
		case "", ResizeNotRequired, ResizeRestartContainer:
		default:
			errs = append(errs, field.NotSupported(p.Child("resizePolicy").Key(rp.name), string(rp.v), []string{string(ResizeNotRequired), string(ResizeRestartContainer)}))
		}
	}
	return errs
}
