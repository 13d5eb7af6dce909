package env

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// resourceFields are the resources a resourceFieldRef may name, as the API server validates
// them (hugepages ones excepted: podlife does not give containers huge pages).
var resourceFields = []string{
	"limits.cpu", "limits.ephemeral-storage", "limits.memory",
	"requests.cpu", "requests.ephemeral-storage", "requests.memory",
}

// Divisors the API server accepts (validateContainerResourceDivisor).
var (
	cpuDivisors  = []string{"1m", "1"}
	sizeDivisors = []string{"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"}
)

// ResourceFieldRef resolves a downward API resource field (an env valueFrom or a downwardAPI
// volume item) as the kubelet does: the container's limit or request of the resource,
// divided by the divisor (default 1) and rounded up (ExtractContainerResourceValue). A
// request the container does not set defaults to its limit, as the API server defaults it;
// a limit it does not set is the pod-level limit or else the node's allocatable
// (defaultPodLimitsForDownwardAPI), here the host's (see Pod.Allocatable). self is the container of an env variable (nil for a
// volume, where containerName is required).
func (c *Resolver) ResourceFieldRef(p *field.Path, ref *corev1.ResourceFieldSelector, self *corev1.Container) (string, bool) {
	volume := self == nil
	switch {
	case volume && ref.ContainerName == "":
		c.is.Field(field.Required(p.Child("containerName"), ""))
		return "", false
	case ref.Resource == "":
		c.is.Field(field.Required(p.Child("resource"), ""))
		return "", false
	case !slices.Contains(resourceFields, ref.Resource):
		c.is.Field(field.NotSupported(p.Child("resource"), ref.Resource, resourceFields))
		return "", false
	}
	kind, name, _ := strings.Cut(ref.Resource, ".")
	divisor := ref.Divisor
	if divisor.IsZero() {
		divisor = resource.MustParse("1")
	} else if msg, ok := checkDivisor(corev1.ResourceName(name), divisor); !ok {
		c.is.Field(field.Invalid(p.Child("divisor"), ref.Resource, msg))
		return "", false
	}
	ct, defaulted := self, true
	if ref.ContainerName != "" {
		var regular bool
		ct, regular = c.podContainer(ref.ContainerName)
		if ct == nil {
			c.is.Errorf(p.Child("containerName"), "Not found: %q: no such container in the pod", ref.ContainerName)
			return "", false
		}
		// The kubelet defaults the limits of every container for a volume, but for an env
		// variable that names its container only those of the pod's regular containers: one
		// naming an init container (even its own) sees its limits as set, 0 if none.
		defaulted = regular || volume
	}
	q := c.containerResource(ct, kind, corev1.ResourceName(name), defaulted)
	if name == string(corev1.ResourceCPU) {
		return strconv.FormatInt(ceilDiv(q.MilliValue(), divisor.MilliValue()), 10), true
	}
	return strconv.FormatInt(ceilDiv(q.Value(), divisor.Value()), 10), true
}

// checkDivisor checks a divisor against those the API server accepts for the resource.
func checkDivisor(name corev1.ResourceName, d resource.Quantity) (string, bool) {
	switch name {
	case corev1.ResourceCPU:
		return "only divisor's values 1m and 1 are supported with the cpu resource", slices.Contains(cpuDivisors, d.String())
	case corev1.ResourceMemory:
		return "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource",
			slices.Contains(sizeDivisors, d.String())
	default:
		return "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource",
			slices.Contains(sizeDivisors, d.String())
	}
}

// podContainer finds a container or init container by name; regular reports whether it is
// one of the regular containers.
func (c *Resolver) podContainer(name string) (ct *corev1.Container, regular bool) {
	s := c.pod.Spec
	for i := range s.Containers {
		if s.Containers[i].Name == name {
			return &s.Containers[i], true
		}
	}
	for i := range s.InitContainers {
		if s.InitContainers[i].Name == name {
			return &s.InitContainers[i], false
		}
	}
	return nil, false
}

// containerResource returns a container's limit or request ("limits" or "requests") of a
// resource, zero if it has none. A missing request is the limit (the API server's default);
// with defaulted, a missing or zero limit is the node's allocatable (the kubelet's).
func (c *Resolver) containerResource(ct *corev1.Container, kind string, name corev1.ResourceName, defaulted bool) resource.Quantity {
	r := ct.Resources
	if kind == "requests" {
		if q, ok := r.Requests[name]; ok {
			return q
		}
		return r.Limits[name] // the API server defaults a request to its limit
	}
	if q, ok := r.Limits[name]; (ok && !q.IsZero()) || !defaulted {
		return q
	}
	return c.allocatable()[name]
}

// allocatable returns what the kubelet gives a container without a limit: the pod-level
// limit of the resource if the pod has one (cpu and memory), else the node allocatable
// (Pod.Allocatable or this host's).
func (c *Resolver) allocatable() corev1.ResourceList {
	if c.alloc == nil {
		c.alloc = maps.Clone(c.pod.Allocatable)
		if c.alloc == nil {
			c.alloc = hostAllocatable()
		}
		if r := c.pod.Spec.Resources; r != nil {
			for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				if q, ok := r.Limits[name]; ok && !q.IsZero() {
					if _, ok := c.alloc[name]; ok {
						c.alloc[name] = q
					}
				}
			}
		}
	}
	return c.alloc
}

// ceilDiv is a/b rounded up, for a >= 0 and b > 0.
func ceilDiv(a, b int64) int64 {
	if b <= 0 {
		return 0
	}
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}
