package podlife_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/restartrule"
	"github.com/podlife/podlife/probe"
)

// TestValidateAPIServerWording: a PodSpec built in Go gets, for the fields a manifest sets the
// same way, the errors podlife/kube's TestAPIServerValidation expects from the API server:
// the same path, type and message.
func TestValidateAPIServerWording(t *testing.T) {
	mod := func(f func(*podlife.PodSpec)) podlife.PodSpec {
		s := validPod()
		s.Containers = append([]podlife.ContainerSpec(nil), s.Containers...)
		f(&s)
		return s
	}
	vol := []podlife.Volume{{Name: "v", EmptyDir: &podlife.EmptyDirVolume{}}}
	period := func(d time.Duration) *probe.Spec {
		return &probe.Spec{Prober: probe.Exec("true"), Period: d, Timeout: time.Second, SuccessThreshold: 1, FailureThreshold: 3}
	}
	zero := time.Duration(0)
	tests := []struct {
		name string
		spec podlife.PodSpec
		want []string
	}{
		{"label key", mod(func(s *podlife.PodSpec) { s.Labels = map[string]string{"bad key": "v"} }),
			[]string{`metadata.labels: Invalid value: "bad key": ` + validation.IsQualifiedName("bad key")[0]}},
		{"no containers", mod(func(s *podlife.PodSpec) { s.Containers = nil }), []string{`spec.containers: Required value`}},
		{"image whitespace", mod(func(s *podlife.PodSpec) { s.Containers[0].Image = " busybox" }),
			[]string{`spec.containers[0].image: Invalid value: " busybox": must not have leading or trailing whitespace`}},
		{"env name", mod(func(s *podlife.PodSpec) {
			s.Containers[0].Env = []podlife.EnvVar{{Name: "1ok"}, {Name: "A=B"}}
		}), []string{`spec.containers[0].env[1].name: Invalid value: "A=B": ` + validation.IsRelaxedEnvVarName("A=B")[0]}},
		{"protocol", mod(func(s *podlife.PodSpec) {
			s.Containers[0].Ports = []podlife.ContainerPort{{ContainerPort: 80, Protocol: "ICMP"}}
		}), []string{`spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`}},
		{"hostPort conflict", mod(func(s *podlife.PodSpec) {
			s.Containers[0].Ports = []podlife.ContainerPort{{ContainerPort: 80, HostPort: 8080}}
			s.Containers = append(s.Containers, podlife.ContainerSpec{Name: "b", Image: "busybox",
				Ports: []podlife.ContainerPort{{ContainerPort: 81, HostPort: 8080}}})
			// An init container runs alone: its host port may be an app container's.
			s.InitContainers = []podlife.ContainerSpec{{Name: "i", Image: "busybox",
				Ports: []podlife.ContainerPort{{ContainerPort: 82, HostPort: 8080}}}}
		}), []string{`spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"`}},
		{"mount name missing", mod(func(s *podlife.PodSpec) {
			s.Volumes = vol
			s.Containers[0].VolumeMounts = []podlife.VolumeMount{{MountPath: "/v"}}
		}), []string{`spec.containers[0].volumeMounts[0].name: Not found: ""`, `spec.containers[0].volumeMounts[0].name: Required value`}},
		{"mountPath missing", mod(func(s *podlife.PodSpec) {
			s.Volumes = vol
			s.Containers[0].VolumeMounts = []podlife.VolumeMount{{Name: "v"}}
		}), []string{`spec.containers[0].volumeMounts[0].mountPath: Required value`}},
		{"subPath", mod(func(s *podlife.PodSpec) {
			s.Volumes = vol
			s.Containers[0].VolumeMounts = []podlife.VolumeMount{{Name: "v", MountPath: "/a", SubPath: "/x"}, {Name: "v", MountPath: "/b", SubPath: "a/../../x"}}
		}), []string{`spec.containers[0].volumeMounts[0].subPath: Invalid value: "/x": must be a relative path`,
			`spec.containers[0].volumeMounts[1].subPath: Invalid value: "a/../../x": must not contain '..'`}},
		{"file path", mod(func(s *podlife.PodSpec) {
			s.Volumes = []podlife.Volume{{Name: "v", Files: &podlife.FilesVolume{Files: []podlife.File{{Path: "..k"}}}}}
		}), []string{`spec.volumes[0].files[0].path: Invalid value: "..k": must not start with '..'`}},
		{"hostPath backstep", mod(func(s *podlife.PodSpec) {
			s.Volumes = []podlife.Volume{{Name: "v", HostPath: &podlife.HostPathVolume{Path: "/a/../b"}}}
		}), []string{`spec.volumes[0].hostPath.path: Invalid value: "/a/../b": must not contain '..'`}},
		{"restartPolicy on app container", mod(func(s *podlife.PodSpec) { s.Containers[0].RestartPolicy = "Sometimes" }),
			[]string{`spec.containers[0].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"`}},
		{"restartPolicyRules without restartPolicy", mod(func(s *podlife.PodSpec) {
			s.Containers[0].RestartPolicyRules = []restartrule.Rule{{Action: restartrule.ActionRestart,
				ExitCodes: &restartrule.OnExitCodes{Operator: restartrule.OpIn, Values: []int32{42}}}}
		}), []string{`spec.containers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used`}},
		{"hostname not a subdomain", mod(func(s *podlife.PodSpec) { s.Hostname = "web..example" }),
			[]string{`spec.hostname: Invalid value: "web..example": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"init lifecycle", mod(func(s *podlife.PodSpec) {
			s.InitContainers = []podlife.ContainerSpec{{Name: "i", Image: "busybox", PostStart: hook.Exec("true")}}
		}), []string{`spec.initContainers[0].lifecycle: Forbidden: may not be set for init containers without restartPolicy=Always`}},
		{"negative probe period", mod(func(s *podlife.PodSpec) { s.Containers[0].ReadinessProbe = period(-time.Second) }),
			[]string{`spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0`}},
		{"activeDeadlineSeconds", mod(func(s *podlife.PodSpec) { s.ActiveDeadline = &zero }),
			[]string{`spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive`}},
		{"four nameservers", mod(func(s *podlife.PodSpec) {
			s.DNS = &podlife.DNSConfig{Nameservers: []string{"1.1.1.1", "1.1.1.2", "1.1.1.3", "1.1.1.4"}}
		}), []string{`spec.dnsConfig.nameservers: Invalid value: ["1.1.1.1","1.1.1.2","1.1.1.3","1.1.1.4"]: must not have more than 3 nameservers`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Validate()
			var ve *podlife.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v, want a *ValidationError", err)
			}
			var got []string
			for _, fe := range ve.Errs {
				got = append(got, fe.Error())
			}
			slices.Sort(got)
			if want := slices.Sorted(slices.Values(tt.want)); !slices.Equal(got, want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
			}
		})
	}
}
