package podlife_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/conditions"
)

func namespacedCtx(ctx context.Context, ns string) context.Context {
	return namespaces.WithNamespace(ctx, ns)
}

type invalidSpec struct {
	name  string
	spec  podlife.PodSpec
	field string // the field path the error must name
}

func validPod() podlife.PodSpec {
	return podlife.PodSpec{Name: "ok", Containers: []podlife.ContainerSpec{{Name: "app", Image: "busybox:1.36"}}}
}

func invalidSpecs() []invalidSpec {
	mod := func(f func(*podlife.PodSpec)) podlife.PodSpec {
		s := validPod()
		s.Containers = append([]podlife.ContainerSpec(nil), s.Containers...)
		f(&s)
		return s
	}
	return []invalidSpec{
		{"missing name", mod(func(s *podlife.PodSpec) { s.Name = "" }), "metadata.name: Required value"},
		{"bad pod name", mod(func(s *podlife.PodSpec) { s.Name = "Bad_Name" }), "metadata.name: Invalid value"},
		{"no containers", mod(func(s *podlife.PodSpec) { s.Containers = nil }), "spec.containers: Required value"},
		{"bad container name", mod(func(s *podlife.PodSpec) { s.Containers[0].Name = "App!" }), "spec.containers[0].name: Invalid value"},
		{"duplicate container", mod(func(s *podlife.PodSpec) {
			s.Containers = append(s.Containers, podlife.ContainerSpec{Name: "app", Image: "busybox:1.36"})
		}), `spec.containers[1].name: Duplicate value: "app"`},
		{"duplicate with init", mod(func(s *podlife.PodSpec) {
			s.InitContainers = []podlife.ContainerSpec{{Name: "app", Image: "busybox:1.36"}}
		}), `spec.initContainers[0].name: Duplicate value: "app"`},
		{"missing image", mod(func(s *podlife.PodSpec) { s.Containers[0].Image = "" }), "spec.containers[0].image: Required value"},
		{"bad image", mod(func(s *podlife.PodSpec) { s.Containers[0].Image = "UPPER/Case::x" }), "spec.containers[0].image: Invalid value"},
		{"unknown volume", mod(func(s *podlife.PodSpec) {
			s.Containers[0].VolumeMounts = []podlife.VolumeMount{{Name: "nope", MountPath: "/x"}}
		}), `spec.containers[0].volumeMounts[0].name: Not found: "nope"`},
		{"relative mount path", mod(func(s *podlife.PodSpec) {
			s.Volumes = []podlife.Volume{{Name: "v", EmptyDir: &podlife.EmptyDirVolume{}}}
			s.Containers[0].VolumeMounts = []podlife.VolumeMount{{Name: "v", MountPath: "rel"}}
		}), "spec.containers[0].volumeMounts[0].mountPath: Invalid value"},
		{"volume without source", mod(func(s *podlife.PodSpec) { s.Volumes = []podlife.Volume{{Name: "v"}} }), "spec.volumes[0]: Required value"},
		{"relative hostPath", mod(func(s *podlife.PodSpec) {
			s.Volumes = []podlife.Volume{{Name: "v", HostPath: &podlife.HostPathVolume{Path: "tmp"}}}
		}), "spec.volumes[0].hostPath.path: Invalid value"},
		{"image volume without reference", mod(func(s *podlife.PodSpec) {
			s.Volumes = []podlife.Volume{{Name: "v", Image: &podlife.ImageVolume{}}}
		}), "spec.volumes[0].image.reference: Required value"},
		{"bad image volume reference", mod(func(s *podlife.PodSpec) {
			s.Volumes = []podlife.Volume{{Name: "v", Image: &podlife.ImageVolume{Reference: "UPPER/Case::x"}}}
		}), "spec.volumes[0].image.reference: Invalid value"},
		{"bad image volume pull policy", mod(func(s *podlife.PodSpec) {
			s.Volumes = []podlife.Volume{{Name: "v", Image: &podlife.ImageVolume{Reference: "busybox:1.36", PullPolicy: "Maybe"}}}
		}), "spec.volumes[0].image.pullPolicy: Unsupported value"},
		{"image and emptyDir volume", mod(func(s *podlife.PodSpec) {
			s.Volumes = []podlife.Volume{{Name: "v", EmptyDir: &podlife.EmptyDirVolume{}, Image: &podlife.ImageVolume{Reference: "busybox:1.36"}}}
		}), "spec.volumes[0]: Forbidden: may not specify more than 1 volume type"},
		{"negative grace", mod(func(s *podlife.PodSpec) { s.TerminationGracePeriod = ptr(-time.Second) }), "spec.terminationGracePeriodSeconds: Invalid value"},
		{"negative hook timeout", mod(func(s *podlife.PodSpec) { s.Containers[0].HookTimeout = -time.Second }), "spec.containers[0].lifecycle.hookTimeout: Invalid value"},
		{"bad restart policy", mod(func(s *podlife.PodSpec) { s.RestartPolicy = "Sometimes" }), "spec.restartPolicy: Unsupported value"},
		{"bad pull policy", mod(func(s *podlife.PodSpec) { s.Containers[0].ImagePullPolicy = "Maybe" }), "spec.containers[0].imagePullPolicy: Unsupported value"},
		{"duplicate hostPort", mod(func(s *podlife.PodSpec) {
			s.Containers[0].Ports = []podlife.ContainerPort{{ContainerPort: 80, HostPort: 8080}, {ContainerPort: 81, HostPort: 8080}}
		}), "spec.containers[0].ports[1].hostPort: Duplicate value"},
		{"empty exec hook", mod(func(s *podlife.PodSpec) { s.Containers[0].PostStart = hook.Exec() }), "spec.containers[0].lifecycle.postStart: Invalid value"},
		{"bad httpGet port", mod(func(s *podlife.PodSpec) { s.Containers[0].PreStop = hook.HTTPGet(0, "/") }), "spec.containers[0].lifecycle.preStop: Invalid value"},
		{"bad env name", mod(func(s *podlife.PodSpec) { s.Containers[0].Env = []podlife.EnvVar{{Name: "1=x"}} }), "spec.containers[0].env[0].name: Invalid value"},
		{"bad readiness gate", mod(func(s *podlife.PodSpec) { s.ReadinessGates = []conditions.Type{"a/b/c"} }), "spec.readinessGates[0].conditionType: Invalid value"},
		{"pod cpu request above its limit", mod(func(s *podlife.PodSpec) { s.Resources = podlife.Resources{CPULimit: 500, CPURequest: 600} }),
			`spec.resources.requests[cpu]: Invalid value: "600m": must be less than or equal to cpu limit of 500m`},
		{"pod memory limit below a container's", mod(func(s *podlife.PodSpec) {
			s.Resources.MemoryLimit = 64 << 20
			s.Containers[0].Resources.MemoryLimit = 128 << 20
		}), `spec.resources.containers[0][memory].limits: Invalid value: "128Mi": must be less than or equal to pod limits of 64Mi`},
		{"pod cpu request below the containers'", mod(func(s *podlife.PodSpec) {
			s.Resources.CPURequest = 500
			s.Containers[0].Resources.CPURequest = 200
			s.InitContainers = []podlife.ContainerSpec{
				{Name: "side", Image: "busybox:1.36", RestartPolicy: podlife.RestartAlways, Resources: podlife.Resources{CPURequest: 300}},
				{Name: "init", Image: "busybox:1.36", Resources: podlife.Resources{CPURequest: 900}},
			}
		}), `spec.resources.requests[cpu]: Invalid value: "500m": must be greater than or equal to aggregate container requests of 1200m`},
	}
}

func TestValidate(t *testing.T) {
	if err := func() *podlife.PodSpec { s := validPod(); return &s }().Validate(); err != nil {
		t.Fatalf("valid pod rejected: %v", err)
	}
	for _, tc := range invalidSpecs() {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.Validate()
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, podlife.ErrInvalidSpec) {
				t.Errorf("%v is not ErrInvalidSpec", err)
			}
			var ve *podlife.ValidationError
			if !errors.As(err, &ve) || len(ve.Errs) == 0 {
				t.Errorf("%v is not a *ValidationError with field errors", err)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("error %q does not name %q", err, tc.field)
			}
		})
	}
}
