package api

// The functions below give package podlife what it needs of unexported methods of the public
// types, without adding a method to the types users see.

// AllContainers lists the pod's init and app containers, in that order.
func AllContainers(s *PodSpec) []*ContainerSpec { return s.allContainers() }

// ValidateDefaulted is Validate of a spec that admission has already defaulted.
func ValidateDefaulted(s *PodSpec) error { return s.validate() }

// CapabilityAdds tells whether c adds the capability name (or ALL).
func CapabilityAdds(c *Capabilities, name string) bool { return c.adds(name) }

// EphemeralWithDefaults is the ephemeral container's defaulter (its container's).
func EphemeralWithDefaults(e EphemeralContainerSpec) EphemeralContainerSpec { return e.withDefaults() }
