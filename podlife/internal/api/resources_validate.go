package api

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validatePodResources checks pod-level resources as the API server does
// (validatePodResourceConsistency): none negative, the CPU request within the limit, the
// containers' aggregate CPU request (sidecars included) within the pod's, and each regular
// container's limits within the pod's.
func validatePodResources(p *field.Path, s *PodSpec) field.ErrorList {
	var errs field.ErrorList
	r := s.Resources
	for _, f := range []struct {
		path string
		v    int64
	}{{"limits.cpu", r.CPULimit}, {"requests.cpu", r.CPURequest}, {"limits.memory", r.MemoryLimit}, {"limits.ephemeral-storage", r.EphemeralStorageLimit}} {
		if f.v < 0 {
			errs = append(errs, field.Invalid(p.Child(f.path), f.v, "must be greater than or equal to 0"))
		}
	}
	if r.CPULimit > 0 && r.CPURequest > r.CPULimit {
		errs = append(errs, field.Invalid(p.Child("requests").Key("cpu"), cpuString(r.CPURequest), "must be less than or equal to cpu limit of "+cpuString(r.CPULimit)))
	}
	if agg := aggregateCPURequest(s); r.CPURequest > 0 && agg > r.CPURequest {
		errs = append(errs, field.Invalid(p.Child("requests").Key("cpu"), cpuString(r.CPURequest), "must be greater than or equal to aggregate container requests of "+cpuString(agg)))
	}
	for i, c := range s.Containers {
		cp := p.Child("containers").Index(i)
		if r.CPULimit > 0 && c.Resources.CPULimit > r.CPULimit {
			errs = append(errs, field.Invalid(cp.Key("cpu").Child("limits"), cpuString(c.Resources.CPULimit), "must be less than or equal to pod limits of "+cpuString(r.CPULimit)))
		}
		if r.MemoryLimit > 0 && c.Resources.MemoryLimit > r.MemoryLimit {
			errs = append(errs, field.Invalid(cp.Key("memory").Child("limits"), memString(c.Resources.MemoryLimit), "must be less than or equal to pod limits of "+memString(r.MemoryLimit)))
		}
	}
	return errs
}

// aggregateCPURequest is the pod's containers' CPU request as the API server aggregates it:
// the regular containers' and the sidecars' together, or an init container's with the sidecars
// started before it, whichever is more.
func aggregateCPURequest(s *PodSpec) int64 {
	var sum, sidecars, inits int64
	for _, c := range s.Containers {
		sum += c.Resources.CPURequest
	}
	for _, c := range s.InitContainers {
		if c.RestartPolicy == RestartAlways {
			sum += c.Resources.CPURequest
			sidecars += c.Resources.CPURequest
			inits = max(inits, sidecars)
		} else {
			inits = max(inits, c.Resources.CPURequest+sidecars)
		}
	}
	return max(sum, inits)
}

func cpuString(m int64) string { return resource.NewMilliQuantity(m, resource.DecimalSI).String() }

func memString(b int64) string { return resource.NewQuantity(b, resource.BinarySI).String() }
