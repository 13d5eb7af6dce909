package status

import (
	"slices"

	. "github.com/podlife/podlife/podlife/internal/api"
)

// Copy returns s with its slices copied, for a caller that may change them: s is a published
// snapshot's, shared by its readers.
func Copy(s PodStatus) PodStatus {
	s.Conditions = slices.Clone(s.Conditions)
	s.ContainerStatuses = slices.Clone(s.ContainerStatuses)
	s.InitContainerStatuses = slices.Clone(s.InitContainerStatuses)
	s.EphemeralContainerStatuses = slices.Clone(s.EphemeralContainerStatuses)
	return s
}
