package control

import (
	"errors"
	"testing"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Through the control socket, only plain fields travel: a spec with others is refused here.
func TestEphemeralRequestFields(t *testing.T) {
	spec := api.EphemeralContainerSpec{TargetContainerName: "t", ContainerSpec: api.ContainerSpec{Name: "d", Image: "busybox",
		Command: []string{"sh"}, Args: []string{"-c", "ps"}, Env: []api.EnvVar{{Name: "A", Value: "b"}}, WorkingDir: "/w", ImagePullPolicy: api.PullNever}}
	req, err := NewEphemeral("pod", spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := req.Spec(); got.Name != "d" || got.TargetContainerName != "t" || got.WorkingDir != "/w" || got.ImagePullPolicy != api.PullNever ||
		len(got.Args) != 2 || got.Env[0].Value != "b" {
		t.Errorf("round trip: %+v", got)
	}
	spec.VolumeMounts = []api.VolumeMount{{Name: "v", MountPath: "/v"}}
	if _, err := NewEphemeral("pod", spec); !errors.Is(err, api.ErrInvalidSpec) {
		t.Errorf("a spec with volume mounts: %v, want ErrInvalidSpec", err)
	}
}
