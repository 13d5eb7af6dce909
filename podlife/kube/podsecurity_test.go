package kube_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"sigs.k8s.io/yaml"

	"github.com/podlife/podlife/podlife/kube"
	"github.com/podlife/podlife/podlife/podsecurity"
)

// psaObjects are the ConfigMap and Secret the table's volumes name.
const psaObjects = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {a: b}\n" +
	"---\napiVersion: v1\nkind: Secret\nmetadata: {name: sec}\nstringData: {a: b}\n"

// TestPodSecurityMatchesAdmission: for a table of pods touching every Pod Security check
// podlife can meet, podlife's verdict on the converted PodSpec (podsecurity.Check) is the
// verdict, and the message, of the API server's PodSecurity admission
// (k8s.io/pod-security-admission) on the manifest's v1.Pod, at each level; so the conversion
// (v1.Pod -> podlife.PodSpec -> the checks' v1.PodSpec) keeps every field the checks read.
func TestPodSecurityMatchesAdmission(t *testing.T) {
	restrictedOK := "  securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}\n"
	hardened := "    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}\n"
	for _, tc := range []struct {
		name, spec string
		// field is a path the baseline refusal must name ("" when baseline allows the pod).
		field string
	}{
		{"plain", "  containers: [{name: c, image: busybox}]\n", ""},
		{"restricted", restrictedOK + "  containers:\n  - name: c\n    image: busybox\n" +
			"    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL], add: [NET_BIND_SERVICE]}}\n", ""},
		{"sys_admin", "  containers:\n  - {name: c, image: busybox, securityContext: {capabilities: {add: [SYS_ADMIN]}}}\n",
			"spec.containers[0].securityContext.capabilities.add"},
		{"caps spellings", "  containers:\n  - {name: a, image: busybox, securityContext: {capabilities: {add: [CAP_CHOWN, sys_admin, KILL, NET_RAW]}}}\n" +
			"  - {name: b, image: busybox, securityContext: {capabilities: {add: [ALL], drop: [ALL]}}}\n",
			"spec.containers[1].securityContext.capabilities.add"},
		{"baseline caps", "  containers:\n  - {name: c, image: busybox, securityContext: {capabilities: {add: [AUDIT_WRITE, CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, MKNOD, NET_BIND_SERVICE, SETFCAP, SETGID, SETPCAP, SETUID, SYS_CHROOT]}}}\n", ""},
		{"init and sidecar caps", "  initContainers:\n  - {name: i, image: busybox, securityContext: {capabilities: {add: [NET_ADMIN]}}}\n" +
			"  - {name: s, image: busybox, restartPolicy: Always, securityContext: {capabilities: {add: [BPF]}}}\n" +
			"  containers: [{name: c, image: busybox}]\n", "spec.initContainers[1].securityContext.capabilities.add"},
		{"privileged", "  containers:\n  - {name: c, image: busybox, securityContext: {privileged: true}}\n",
			"spec.containers[0].securityContext.privileged"},
		{"privileged false", "  containers:\n  - {name: c, image: busybox, securityContext: {privileged: false}}\n", ""},
		{"host namespaces", "  hostNetwork: true\n  hostPID: true\n  hostIPC: true\n  containers: [{name: c, image: busybox}]\n", "spec.hostPID"},
		{"volumes", "  volumes:\n  - {name: e, emptyDir: {}}\n  - {name: h, hostPath: {path: /etc, type: Directory}}\n" +
			"  - {name: cm, configMap: {name: cm}}\n  - {name: s, secret: {secretName: sec}}\n" +
			"  - {name: d, downwardAPI: {items: [{path: name, fieldRef: {fieldPath: metadata.name}}]}}\n" +
			"  - {name: p, projected: {sources: [{configMap: {name: cm}}]}}\n  - {name: i, image: {reference: busybox}}\n" +
			"  containers: [{name: c, image: busybox}]\n", "spec.volumes[1].hostPath"},
		{"host port", "  containers:\n  - {name: c, image: busybox, ports: [{containerPort: 80}, {containerPort: 81, hostPort: 8081}]}\n",
			"spec.containers[0].ports[1].hostPort"},
		{"seccomp pod unconfined", "  securityContext: {seccompProfile: {type: Unconfined}}\n  containers: [{name: c, image: busybox}]\n",
			"spec.securityContext.seccompProfile.type"},
		{"seccomp container unconfined", "  containers:\n  - {name: c, image: busybox, securityContext: {seccompProfile: {type: Unconfined}}}\n",
			"spec.containers[0].securityContext.seccompProfile.type"},
		{"seccomp localhost", "  securityContext: {runAsNonRoot: true, seccompProfile: {type: Localhost, localhostProfile: p.json}}\n" +
			"  containers:\n  - name: c\n    image: busybox\n" + hardened, ""},
		{"sysctls", "  securityContext:\n    sysctls: [{name: net.ipv4.ip_local_port_range, value: '1 2'}, {name: net.core.somaxconn, value: '1'}, {name: kernel.shm_rmid_forced, value: '1'}]\n" +
			"  containers: [{name: c, image: busybox}]\n", "spec.securityContext.sysctls[1].name"},
		{"procMount", "  containers:\n  - {name: c, image: busybox, securityContext: {procMount: Default}}\n", ""},
		{"probe hosts", "  containers:\n  - name: c\n    image: busybox\n" +
			"    livenessProbe: {httpGet: {host: 127.0.0.1, port: 80}}\n    readinessProbe: {tcpSocket: {host: metadata.local, port: 81}}\n" +
			"    startupProbe: {exec: {command: [\"true\"]}}\n" +
			"    lifecycle: {postStart: {httpGet: {host: 10.0.0.1, port: 80}}, preStop: {exec: {command: [\"true\"]}}}\n",
			"spec.containers[0].livenessProbe"},
		{"probes without host", "  containers:\n  - name: c\n    image: busybox\n" +
			"    livenessProbe: {httpGet: {port: 80}}\n    readinessProbe: {tcpSocket: {port: 81}}\n" +
			"    lifecycle: {preStop: {httpGet: {port: 80}}}\n", ""},
		{"root user", "  securityContext: {runAsUser: 0, runAsNonRoot: false, seccompProfile: {type: RuntimeDefault}}\n" +
			"  containers:\n  - name: c\n    image: busybox\n    securityContext: {runAsUser: 0, allowPrivilegeEscalation: true, capabilities: {drop: [ALL]}}\n", ""},
		{"container seccomp and user", "  containers:\n  - name: c\n    image: busybox\n" +
			"    securityContext: {runAsNonRoot: true, runAsUser: 1000, allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}, seccompProfile: {type: RuntimeDefault}}\n" +
			"  - {name: d, image: busybox}\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			manifest := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n" + tc.spec
			var v1 corev1.Pod
			if err := yaml.UnmarshalStrict([]byte(manifest), &v1); err != nil {
				t.Fatal(err)
			}
			res, err := loadString(kube.Options{Strict: true}, manifest+psaObjects)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			spec := onePod(t, res)
			for _, level := range []podsecurity.Level{podsecurity.Privileged, podsecurity.Baseline, podsecurity.Restricted} {
				want := admission(t, level, &v1)
				err := podsecurity.Check(level, &spec)
				var pse *podsecurity.Error
				switch {
				case want == "" && err != nil:
					t.Errorf("%s: podlife refuses: %v; the API server admits the pod", level, err)
				case want != "" && !errors.As(err, &pse):
					t.Errorf("%s: podlife: %v; the API server says %s", level, err, want)
				case want != "" && fmt.Sprintf("violates PodSecurity %q: %s", pse.Policy, pse.Detail) != want:
					t.Errorf("%s: podlife says\n  violates PodSecurity %q: %s\nthe API server\n  %s", level, pse.Policy, pse.Detail, want)
				case want != "" && (len(pse.Fields) == 0 || pse.Fields[0] == "spec" || !strings.Contains(err.Error(), want)):
					t.Errorf("%s: %v: no field named, or not the API server's message", level, err)
				}
				if level == podsecurity.Baseline && (tc.field == "") != (want == "") {
					t.Errorf("baseline: the API server says %q; the table expects a refusal naming %q", want, tc.field)
				}
				if level == podsecurity.Baseline && tc.field != "" && pse != nil && !strings.Contains(strings.Join(pse.Fields, " "), tc.field) {
					t.Errorf("baseline: fields %v, want %s among them", pse.Fields, tc.field)
				}
				if testing.Verbose() && err != nil {
					t.Logf("%s: %v", level, err)
				}
			}
		})
	}
}

// admission is what the API server's PodSecurity admission (enforcing level) answers for
// pod: "" if it admits it, else its message after "pods "p" is forbidden: ".
func admission(t *testing.T, level podsecurity.Level, pod *corev1.Pod) string {
	t.Helper()
	e, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	lv := api.LevelVersion{Level: api.Level(level), Version: api.LatestVersion()}
	r := policy.AggregateCheckResults(e.EvaluatePod(lv, &metav1.ObjectMeta{}, &pod.Spec))
	if r.Allowed {
		return ""
	}
	return fmt.Sprintf("violates PodSecurity %q: %s", lv.String(), r.ForbiddenDetail())
}
