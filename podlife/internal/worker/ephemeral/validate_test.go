package ephemeral_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/ephemeral"
)

func TestValidate(t *testing.T) {
	spec := &api.PodSpec{Name: "p", Containers: []api.ContainerSpec{{Name: "app", Image: "i"}}}
	var admitted []api.ContainerSpec
	pod := ephemeral.Pod{Name: "p", Spec: spec, Containers: slices.Values([]string{"app"}),
		Ephemerals:             []api.ContainerSpec{{Name: "dbg1", Image: "i"}},
		AdmitContainerSecurity: func(*field.Path, *api.SecurityContext) field.ErrorList { return nil },
		AdmitPodSecurity: func(_ *api.PodSpec, e []api.ContainerSpec) error {
			admitted = e
			return nil
		}}
	ok := api.EphemeralWithDefaults(api.EphemeralContainerSpec{ContainerSpec: api.ContainerSpec{Name: "dbg2", Image: "i"}, TargetContainerName: "app"})
	if err := ephemeral.Validate(pod, &ok); err != nil {
		t.Fatal(err)
	}
	if len(admitted) != 2 || admitted[1].Name != "dbg2" || len(pod.Ephemerals) != 1 {
		t.Fatalf("Pod Security admission saw %+v; want the pod's ephemeral containers and the new one", admitted)
	}
	bad := api.EphemeralWithDefaults(api.EphemeralContainerSpec{ContainerSpec: api.ContainerSpec{Name: "dbg1", Image: "i",
		Ports: []api.ContainerPort{{ContainerPort: 80}}, Resources: api.Resources{CPULimit: 1}}, TargetContainerName: "nope"})
	err := ephemeral.Validate(pod, &bad)
	var verr *api.ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("Validate: %v, want a *ValidationError", err)
	}
	for _, want := range []string{"spec.ephemeralContainers[1].name", "spec.ephemeralContainers[1].ports", "spec.ephemeralContainers[1].resources", "spec.ephemeralContainers[1].targetContainerName"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}
