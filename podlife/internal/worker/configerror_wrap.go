package worker

import . "github.com/podlife/podlife/podlife/internal/api"

// configError is a container's CreateContainerConfigError: its text is the kubelet's message
// alone, and errors.Is(err, ErrCreateContainerConfig) holds.
type configError struct{ err error }

func (e *configError) Error() string        { return e.err.Error() }
func (e *configError) Unwrap() error        { return e.err }
func (e *configError) Is(target error) bool { return target == ErrCreateContainerConfig }
