package eviction

import "fmt"

// Reason is the kubelet's reason for an evicted pod (its status and its Warning event).
const Reason = "Evicted"

// The kubelet's message formats (pkg/kubelet/eviction/helpers.go), trailing space included.
const (
	emptyDirMessageFmt  = "Usage of EmptyDir volume %q exceeds the limit %q. "
	podMessageFmt       = "Pod ephemeral local storage usage exceeds the total limit of containers %s. "
	containerMessageFmt = "Container %s exceeded its local ephemeral storage limit %q. "
)

// Limits is what a pod may keep on local storage.
type Limits struct {
	// EmptyDirs are the pod's disk-backed emptyDir volumes, in spec order; a Limit of 0 means
	// none (the volume only counts towards the pod's total).
	EmptyDirs []Volume
	// Containers are the pod's containers, init containers first, each in spec order; a
	// Limit of 0 means none.
	Containers []Container
	// Pod, if not 0, bounds the pod's total instead of the sum of its containers' limits.
	Pod int64
}

// Any reports whether there is any limit to check.
func (l Limits) Any() bool {
	if _, ok := l.PodLimit(); ok {
		return true
	}
	for _, v := range l.EmptyDirs {
		if v.Limit > 0 {
			return true
		}
	}
	return false
}

// Volume is an emptyDir volume's size limit, in bytes.
type Volume struct {
	Name  string
	Limit int64
}

// Container is a container's resources.limits.ephemeral-storage, in bytes.
type Container struct {
	Name  string
	Limit int64
	// Init marks an init container; Sidecar an init container that restarts always (a native
	// sidecar, which runs alongside the regular containers).
	Init, Sidecar bool
}

// Usage is what a pod keeps on local storage, in bytes.
type Usage struct {
	// Volumes is each volume's usage on disk, by name (any kind kept on the node's disk:
	// all of them count towards the pod's total).
	Volumes map[string]uint64
	// Containers is each container's writable layer plus its logs, by name.
	Containers map[string]uint64
}

// Total is the pod's whole local storage usage: every volume and every container.
func (u Usage) Total() uint64 {
	var t uint64
	for _, v := range u.Volumes {
		t += v
	}
	for _, c := range u.Containers {
		t += c
	}
	return t
}

// Decision is an eviction: the kubelet's message and, when one container is to blame, its
// name ("" for a volume or the pod's total).
type Decision struct {
	Message   string
	Container string
}

// Decide reports whether a pod with these limits and this usage is evicted, checking in the
// kubelet's order (localStorageEviction): each emptyDir over its sizeLimit, then the pod's
// total over the sum of its containers' limits, then each regular container over its own.
// Usage equal to a limit is within it.
func Decide(l Limits, u Usage) (Decision, bool) {
	for _, v := range l.EmptyDirs {
		if used, ok := u.Volumes[v.Name]; ok && v.Limit > 0 && used > uint64(v.Limit) {
			return Decision{Message: fmt.Sprintf(emptyDirMessageFmt, v.Name, FormatQuantity(v.Limit))}, true
		}
	}
	if limit, ok := l.PodLimit(); ok && u.Total() > uint64(limit) {
		return Decision{Message: fmt.Sprintf(podMessageFmt, FormatQuantity(limit))}, true
	}
	for _, c := range l.Containers {
		if c.Init || c.Limit <= 0 {
			continue // the kubelet checks only spec.containers against their own limits
		}
		if used, ok := u.Containers[c.Name]; ok && used > uint64(c.Limit) {
			return Decision{Message: fmt.Sprintf(containerMessageFmt, c.Name, FormatQuantity(c.Limit)), Container: c.Name}, true
		}
	}
	return Decision{}, false
}

// PodLimit is the pod's ephemeral-storage limit as the kubelet computes it (PodLimits): the
// sum of its regular containers' and sidecars' limits, or, if larger, what any regular init
// container's limit plus the sidecars started before it add up to. ok is false if no
// container has a limit. A Pod limit replaces all this.
func (l Limits) PodLimit() (limit int64, ok bool) {
	if l.Pod > 0 {
		return l.Pod, true
	}
	var sum, sidecars, initMax int64
	for _, c := range l.Containers {
		if c.Limit > 0 {
			ok = true
		}
		switch {
		case c.Sidecar:
			sidecars += c.Limit
			sum += c.Limit
		case c.Init:
			initMax = max(initMax, c.Limit+sidecars)
		default:
			sum += c.Limit
		}
	}
	return max(sum, initMax), ok
}
