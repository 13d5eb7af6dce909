package eviction

import (
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
)

// The kubelet's eviction manager's timings for a pod's local storage.
const (
	DefaultPeriod = 10 * time.Second // the kubelet's housekeeping period
	Grace         = time.Second      // immediateEvictionGracePeriodSeconds
)

// PodLimits are spec's local storage limits.
func PodLimits(s *api.PodSpec) Limits {
	l := Limits{Pod: s.Resources.EphemeralStorageLimit}
	for _, v := range s.Volumes {
		if v.EmptyDir != nil && v.EmptyDir.Medium != api.MediumMemory {
			l.EmptyDirs = append(l.EmptyDirs, Volume{Name: v.Name, Limit: v.EmptyDir.SizeLimit})
		}
	}
	for i, cs := range [][]api.ContainerSpec{s.InitContainers, s.Containers} {
		for _, c := range cs {
			l.Containers = append(l.Containers, Container{Name: c.Name, Limit: c.Resources.EphemeralStorageLimit,
				Init: i == 0, Sidecar: c.RestartPolicy == api.RestartAlways})
		}
	}
	return l
}

// DiskVolumes names spec's volumes kept on the node's disk (emptyDir and files volumes not in
// memory), in spec order: their usage counts towards the pod's.
func DiskVolumes(s *api.PodSpec) []string {
	var names []string
	for _, v := range s.Volumes {
		if v.EmptyDir != nil && v.EmptyDir.Medium != api.MediumMemory || v.Files != nil && v.Files.Medium != api.MediumMemory {
			names = append(names, v.Name)
		}
	}
	return names
}
