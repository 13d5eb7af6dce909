package podlife

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"

	"github.com/podlife/podlife/podlife/internal/poddir"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// addEphemeralRemote adds an ephemeral container to the named pod that this Runtime does not
// manage (see Pod.AddEphemeralContainer): its manager is asked through its control socket, and
// only the fields that can travel are sent. A pod without a live manager cannot get one: an
// error wrapping ErrNotFound.
func (r *Runtime) addEphemeralRemote(ctx context.Context, pod string, spec EphemeralContainerSpec) error {
	req, err := newEphemeralRequest(pod, spec)
	if err != nil {
		return err
	}
	var rec podRecord
	if err := poddir.ReadJSON(filepath.Join(r.cfg.StateDir, "pods", pod, recordFile), &rec); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("pod %q: %w", pod, ErrNotFound)
		}
		return fmt.Errorf("pod %q: %w", pod, err)
	}
	err = ask(ctx, rec.Control, controlRequest{Op: "ephemeral", Pod: pod, Ephemeral: req})
	if errors.Is(err, errNoManager) {
		return fmt.Errorf("pod %q: no process manages it (pid %d is gone): %w", pod, rec.OwnerPID, ErrNotFound)
	}
	return err
}

// ephemeralRequest is an ephemeral container sent through the control socket: the fields of
// EphemeralContainerSpec that are plain data and that `kubectl debug` sets.
type ephemeralRequest struct {
	Name            string     `json:"name"`
	Image           string     `json:"image"`
	ImagePullPolicy PullPolicy `json:"imagePullPolicy,omitempty"`
	Command         []string   `json:"command"`
	Args            []string   `json:"args"`
	Env             []EnvVar   `json:"env"`
	WorkingDir      string     `json:"workingDir,omitempty"`
	Target          string     `json:"targetContainerName,omitempty"`
	Stdin           bool       `json:"stdin,omitempty"`
	TTY             bool       `json:"tty,omitempty"`
}

// newEphemeralRequest takes what can travel of spec, and refuses a spec with anything else set.
func newEphemeralRequest(pod string, spec EphemeralContainerSpec) (*ephemeralRequest, error) {
	c := spec.ContainerSpec
	req := &ephemeralRequest{Name: c.Name, Image: c.Image, ImagePullPolicy: c.ImagePullPolicy,
		Command: c.Command, Args: c.Args, Env: c.Env, WorkingDir: c.WorkingDir, Target: spec.TargetContainerName,
		Stdin: spec.Stdin, TTY: spec.TTY}
	rest := c
	rest.Name, rest.Image, rest.ImagePullPolicy, rest.Command, rest.Args, rest.Env, rest.WorkingDir = "", "", "", nil, nil, nil, ""
	if !reflect.ValueOf(rest).IsZero() {
		path := field.NewPath("spec", "ephemeralContainers").Key(c.Name)
		return nil, &ValidationError{Pod: pod, Errs: field.ErrorList{field.Forbidden(path,
			"only name, image, imagePullPolicy, command, args, env, workingDir, targetContainerName, stdin and tty can be sent to the process that manages the pod")}}
	}
	return req, nil
}

// check is the control socket's first check of a request; the manager validates the spec in
// full (Pod.AddEphemeralContainer).
func (e *ephemeralRequest) check() error {
	if e == nil {
		return errors.New("ephemeral op without a container")
	}
	if err := checkName("container", e.Name); err != nil {
		return err
	}
	if e.Target != "" {
		if err := checkName("container", e.Target); err != nil {
			return err
		}
	}
	if e.Image == "" {
		return errors.New("ephemeral container without an image")
	}
	return nil
}

// spec is the EphemeralContainerSpec the request describes.
func (e *ephemeralRequest) spec() EphemeralContainerSpec {
	return EphemeralContainerSpec{TargetContainerName: e.Target, Stdin: e.Stdin, TTY: e.TTY, ContainerSpec: ContainerSpec{
		Name: e.Name, Image: e.Image, ImagePullPolicy: e.ImagePullPolicy, Command: e.Command,
		Args: e.Args, Env: e.Env, WorkingDir: e.WorkingDir}}
}
