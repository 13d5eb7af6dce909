package containerspec

import "github.com/podlife/podlife/podlife/internal/api"

// ConfigError is a container's CreateContainerConfigError: its text is the kubelet's message
// alone, and errors.Is(err, api.ErrCreateContainerConfig) holds.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string        { return e.Err.Error() }
func (e *ConfigError) Unwrap() error        { return e.Err }
func (e *ConfigError) Is(target error) bool { return target == api.ErrCreateContainerConfig }
