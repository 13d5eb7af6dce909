package control

import (
	"errors"
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife/internal/api"
)

// EphemeralRequest is an ephemeral container sent through the control socket: the fields of
// EphemeralContainerSpec that are plain data and that `kubectl debug` sets.
type EphemeralRequest struct {
	Name            string         `json:"name"`
	Image           string         `json:"image"`
	ImagePullPolicy api.PullPolicy `json:"imagePullPolicy,omitempty"`
	Command         []string       `json:"command"`
	Args            []string       `json:"args"`
	Env             []api.EnvVar   `json:"env"`
	WorkingDir      string         `json:"workingDir,omitempty"`
	Target          string         `json:"targetContainerName,omitempty"`
	Stdin           bool           `json:"stdin,omitempty"`
	TTY             bool           `json:"tty,omitempty"`
}

// NewEphemeral takes what can travel of spec, and refuses a spec with anything else set.
func NewEphemeral(pod string, spec api.EphemeralContainerSpec) (*EphemeralRequest, error) {
	c := spec.ContainerSpec
	req := &EphemeralRequest{Name: c.Name, Image: c.Image, ImagePullPolicy: c.ImagePullPolicy,
		Command: c.Command, Args: c.Args, Env: c.Env, WorkingDir: c.WorkingDir, Target: spec.TargetContainerName,
		Stdin: spec.Stdin, TTY: spec.TTY}
	rest := c
	rest.Name, rest.Image, rest.ImagePullPolicy, rest.Command, rest.Args, rest.Env, rest.WorkingDir = "", "", "", nil, nil, nil, ""
	if !reflect.ValueOf(rest).IsZero() {
		path := field.NewPath("spec", "ephemeralContainers").Key(c.Name)
		return nil, &api.ValidationError{Pod: pod, Errs: field.ErrorList{field.Forbidden(path,
			"only name, image, imagePullPolicy, command, args, env, workingDir, targetContainerName, stdin and tty can be sent to the process that manages the pod")}}
	}
	return req, nil
}

// check is the control socket's first check of a request; the manager validates the spec in
// full (podlife's Pod.AddEphemeralContainer).
func (e *EphemeralRequest) check() error {
	if e == nil {
		return errors.New("ephemeral op without a container")
	}
	if err := api.CheckName("container", e.Name); err != nil {
		return err
	}
	if e.Target != "" {
		if err := api.CheckName("container", e.Target); err != nil {
			return err
		}
	}
	if e.Image == "" {
		return errors.New("ephemeral container without an image")
	}
	return nil
}

// Spec is the EphemeralContainerSpec the request describes.
func (e *EphemeralRequest) Spec() api.EphemeralContainerSpec {
	return api.EphemeralContainerSpec{TargetContainerName: e.Target, Stdin: e.Stdin, TTY: e.TTY, ContainerSpec: api.ContainerSpec{
		Name: e.Name, Image: e.Image, ImagePullPolicy: e.ImagePullPolicy, Command: e.Command,
		Args: e.Args, Env: e.Env, WorkingDir: e.WorkingDir}}
}
