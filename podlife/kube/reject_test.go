package kube_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
)

// pod wraps container fields (indented for a containers entry) and pod spec fields (indented
// for spec) into a Pod manifest.
func pod(spec, container string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n" + spec +
		"  containers:\n  - name: c\n    image: busybox:1.36\n" + container
}

// TestRejections: every broken or unsupported input is rejected, naming exactly the fields
// at fault.
func TestRejections(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		paths    []string
	}{
		{"invalid YAML", "kind: Pod\nmetadata: [", []string{kube.DocumentPath}},
		{"invalid JSON", `{"kind": "Pod", "metadata": }`, []string{kube.DocumentPath}},
		{"bad separator", "kind: Pod\n--- x\n", []string{kube.DocumentPath}},
		{"duplicate YAML key", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n", []string{kube.DocumentPath}},
		{"not an object", "- a\n- b\n", []string{kube.DocumentPath}},
		{"missing kind", "apiVersion: v1\nmetadata: {name: p}\n", []string{"kind"}},
		{"kind not a string", "apiVersion: v1\nkind: [Pod]\n", []string{"kind"}},
		{"unknown kind", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: p}\n", []string{"kind"}},
		{"wrong apiVersion", "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: d}\n", []string{"apiVersion"}},
		{"missing name", strings.Replace(pod("", ""), "  name: p\n", "", 1), []string{"metadata.name"}},
		{"generateName", strings.Replace(pod("", ""), "  name: p\n", "  generateName: p-\n", 1), []string{"metadata.name"}},
		{"bad name", strings.Replace(pod("", ""), "name: p", "name: My_Pod", 1), []string{"metadata.name"}},
		{"no containers", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {}\n", []string{"spec.containers"}},
		{"bad image", strings.Replace(pod("", ""), "busybox:1.36", "Busy Box", 1), []string{"spec.containers[0].image"}},
		{"duplicate container", pod("", "  - name: c\n    image: busybox\n"), []string{"spec.containers[1].name"}},
		{"unknown field", pod("", "    imagePullPolcy: Always\n"), []string{"spec.containers[0].imagePullPolcy"}},
		{"duplicate JSON field", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "name": "p"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}`, []string{"metadata.name"}},
		{"wrong type", pod("", "    ports: [{containerPort: http}]\n"), []string{"spec.containers[0].ports[0].containerPort"}},
		{"bad quantity", pod("", "    resources: {limits: {memory: lots}}\n"), []string{"spec.containers[0].resources.limits[memory]"}},
		{"hostNetwork port mismatch", pod("  hostNetwork: true\n", "    ports: [{containerPort: 80, hostPort: 8080}]\n"), []string{"spec.containers[0].ports[0].hostPort"}},
		{"bad hostIP", pod("", "    ports: [{containerPort: 80, hostPort: 80, hostIP: nope}]\n"), []string{"spec.containers[0].ports[0].hostIP"}},
		{"port out of range", pod("", "    ports: [{containerPort: 70000}]\n"), []string{"spec.containers[0].ports[0].containerPort"}},
		{"unknown volume", pod("", "    volumeMounts: [{name: data, mountPath: /data}]\n"), []string{"spec.containers[0].volumeMounts[0].name"}},
		{"mountPropagation", pod("  volumes: [{name: v, emptyDir: {}}]\n",
			"    volumeMounts:\n    - {name: v, mountPath: /a}\n    - {name: v, mountPath: /b, mountPropagation: Bidirectional}\n"),
			[]string{"spec.containers[0].volumeMounts[1].mountPropagation"}},
		{"subPath and subPathExpr", pod("  volumes: [{name: v}]\n", "    volumeMounts: [{name: v, mountPath: /a, subPath: x, subPathExpr: y}]\n"),
			[]string{"spec.containers[0].volumeMounts[0].subPathExpr"}},
		{"subPathExpr missing variable", pod("  volumes: [{name: v}]\n", "    volumeMounts: [{name: v, mountPath: /a, subPathExpr: $(NODE)}]\n"),
			[]string{"spec.containers[0].volumeMounts[0].subPathExpr"}},
		{"subPathExpr escaping", pod("  volumes: [{name: v}]\n", "    env: [{name: D, value: ..}]\n    volumeMounts: [{name: v, mountPath: /a, subPathExpr: $(D)/x}]\n"),
			[]string{"spec.containers[0].volumeMounts[0].subPathExpr"}},
		{"shareProcessNamespace with hostPID", pod("  shareProcessNamespace: true\n  hostPID: true\n", ""), []string{"spec.shareProcessNamespace"}},
		{"ipc sysctl with hostIPC", pod("  hostIPC: true\n  securityContext: {sysctls: [{name: kernel.shm_rmid_forced, value: '1'}]}\n", ""), []string{"spec.securityContext.sysctls[0].name"}},
		{"hostUsers", pod("  hostUsers: false\n", ""), []string{"spec.hostUsers"}},
		{"readinessGates", pod("  readinessGates: [{conditionType: -x}]\n", ""), []string{"spec.readinessGates[0].conditionType"}},
		{"runtimeClassName", pod("  runtimeClassName: Not_A_Class\n", ""), []string{"spec.runtimeClassName"}},
		{"pod securityContext", pod("  securityContext: {runAsUser: -1, supplementalGroupsPolicy: Strict, sysctls: [{name: vm.swappiness, value: '1'}]}\n", ""),
			[]string{"spec.securityContext.runAsUser", "spec.securityContext.supplementalGroupsPolicy", "spec.securityContext.sysctls[0].name"}},
		{"container securityContext", pod("", "    securityContext: {procMount: Unmasked, capabilities: {add: [FLY]}, appArmorProfile: {type: RuntimeDefault}, seccompProfile: {type: Localhost, localhostProfile: ../x.json}}\n"),
			[]string{"spec.containers[0].securityContext.appArmorProfile", "spec.containers[0].securityContext.capabilities.add[0]",
				"spec.containers[0].securityContext.procMount", "spec.containers[0].securityContext.seccompProfile.localhostProfile"}},
		{"windows", pod("  os: {name: windows}\n", ""), []string{"spec.os.name"}},
		{"ephemeralContainers", pod("  ephemeralContainers: [{name: debug, image: busybox}]\n", ""), []string{"spec.ephemeralContainers"}},
		{"pod resources", pod("  resources: {limits: {cpu: 1, nvidia.com/gpu: 1}}\n", ""), []string{"spec.resources.limits[nvidia.com/gpu]"}},
		{"pod resources below a container's", pod("  resources: {limits: {memory: 64Mi}}\n", "    resources: {limits: {memory: 128Mi}}\n"), []string{"spec.resources.containers[0][memory].limits"}}, // the API server's path
		{"hostPath type", pod("  volumes: [{name: v, hostPath: {path: /run/x.sock, type: Socket}}]\n", ""), []string{"spec.volumes[0].hostPath.type"}},
		{"hostPath relative", pod("  volumes: [{name: v, hostPath: {path: data}}]\n", ""), []string{"spec.volumes[0].hostPath.path"}},
		{"persistentVolumeClaim", pod("  volumes: [{name: v, persistentVolumeClaim: {claimName: c}}]\n", ""), []string{"spec.volumes[0].persistentVolumeClaim"}},
		{"two volume sources", pod("  volumes: [{name: v, emptyDir: {}, hostPath: {path: /x}}]\n", ""), []string{"spec.volumes[0].hostPath"}},
		{"duplicate volume", pod("  volumes: [{name: v}, {name: v}]\n", ""), []string{"spec.volumes[1].name"}},
		{"hugepages emptyDir", pod("  volumes: [{name: v, emptyDir: {medium: HugePages}}]\n", ""), []string{"spec.volumes[0].emptyDir.medium"}},
		{"missing configMap", pod("  volumes: [{name: v, configMap: {name: cfg}}]\n", ""), []string{"spec.volumes[0].configMap.name"}},
		{"missing secret", pod("  volumes: [{name: v, secret: {secretName: s}}]\n", ""), []string{"spec.volumes[0].secret.secretName"}},
		{"configMap item escaping", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {k: v}\n---\n" +
			pod("  volumes: [{name: v, configMap: {name: cfg, items: [{key: k, path: ../k}]}}]\n", ""),
			[]string{"spec.volumes[0].configMap.items[0].path"}},
		{"configMap item missing key", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {k: v}\n---\n" +
			pod("  volumes: [{name: v, configMap: {name: cfg, items: [{key: nope, path: x}]}}]\n", ""),
			[]string{"spec.volumes[0].configMap.items[0].key"}},
		{"configMap key podlife cannot write", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {..a: v}\n---\n" +
			pod("  volumes: [{name: v, configMap: {name: cfg}}]\n", ""),
			[]string{"data[..a]", "spec.volumes[0].configMap.name"}},
		{"file mode", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {k: v}\n---\n" +
			pod("  volumes: [{name: v, configMap: {name: cfg, defaultMode: 4096}}]\n", ""),
			[]string{"spec.volumes[0].configMap.defaultMode"}},
		{"serviceAccountToken", pod("  volumes: [{name: v, projected: {sources: [{serviceAccountToken: {path: token}}]}}]\n", ""),
			[]string{"spec.volumes[0].projected.sources[0].serviceAccountToken"}},
		{"downwardAPI uid", pod("  volumes: [{name: v, downwardAPI: {items: [{path: uid, fieldRef: {fieldPath: metadata.uid}}]}}]\n", ""),
			[]string{"spec.volumes[0].downwardAPI.items[0].fieldRef.fieldPath"}},
		{"env podIP expanded in a value", pod("", "    env: [{name: IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}, {name: URL, value: 'http://$(IP)/'}]\n"),
			[]string{"spec.containers[0].env[1].value"}},
		{"env hostIP expanded in args", pod("", "    args: [--bind=$(HOST)]\n    env: [{name: HOST, valueFrom: {fieldRef: {fieldPath: status.hostIP}}}]\n"),
			[]string{"spec.containers[0].args"}},
		{"env unknown fieldPath", pod("", "    env: [{name: X, valueFrom: {fieldRef: {fieldPath: metadata.labels}}}]\n"),
			[]string{"spec.containers[0].env[0].valueFrom.fieldRef.fieldPath"}},
		{"env resourceFieldRef", pod("", "    env: [{name: CPU, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 1k}}}]\n"),
			[]string{"spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor"}},
		{"env missing configMap", pod("", "    env: [{name: X, valueFrom: {configMapKeyRef: {name: cfg, key: k}}}]\n"),
			[]string{"spec.containers[0].env[0].valueFrom.configMapKeyRef.name"}},
		{"env missing key", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {k: v}\n---\n" +
			pod("", "    env: [{name: X, valueFrom: {configMapKeyRef: {name: cfg, key: nope}}}]\n"),
			[]string{"spec.containers[0].env[0].valueFrom.configMapKeyRef.key"}},
		{"env value and valueFrom", pod("", "    env: [{name: X, value: a, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]\n"),
			[]string{"spec.containers[0].env[0].valueFrom"}},
		{"env bad name", pod("", "    env: [{name: A, value: a}, {name: B=C, value: b}]\n"), []string{"spec.containers[0].env[1].name"}},
		{"envFrom missing", pod("", "    envFrom: [{secretRef: {name: s}}]\n"), []string{"spec.containers[0].envFrom[0].secretRef.name"}},
		{"named port not found", pod("", "    livenessProbe: {httpGet: {port: http}}\n"), []string{"spec.containers[0].livenessProbe.httpGet.port"}},
		{"probe without handler", pod("", "    livenessProbe: {periodSeconds: 5}\n"), []string{"spec.containers[0].livenessProbe"}},
		{"probe with two handlers", pod("", "    livenessProbe: {tcpSocket: {port: 80}, exec: {command: [x]}}\n"), []string{"spec.containers[0].livenessProbe.tcpSocket"}},
		{"negative probe period", pod("", "    readinessProbe: {tcpSocket: {port: 80}, periodSeconds: -1}\n"), []string{"spec.containers[0].readinessProbe.periodSeconds"}},
		{"liveness success threshold", pod("", "    livenessProbe: {tcpSocket: {port: 80}, successThreshold: 2}\n"), []string{"spec.containers[0].livenessProbe.successThreshold"}},
		{"grpc TLS", pod("", "    livenessProbe: {grpc: {port: 80, mode: TLS}}\n"), []string{"spec.containers[0].livenessProbe.grpc.mode"}},
		{"probe on init container", strings.Replace(pod("", ""), "  containers:", "  initContainers: [{name: i, image: busybox, readinessProbe: {tcpSocket: {port: 1}}}]\n  containers:", 1),
			[]string{"spec.initContainers[0].readinessProbe"}},
		{"tcpSocket hook", pod("", "    lifecycle: {preStop: {tcpSocket: {port: 80}}}\n"), []string{"spec.containers[0].lifecycle.preStop.tcpSocket"}},
		{"hook without handler", pod("", "    lifecycle: {postStart: {}}\n"), []string{"spec.containers[0].lifecycle.postStart"}},
		{"negative sleep", pod("", "    lifecycle: {preStop: {sleep: {seconds: -1}}}\n"), []string{"spec.containers[0].lifecycle.preStop.sleep"}},
		{"stopSignal without os", pod("", "    lifecycle: {stopSignal: SIGUSR1}\n"), []string{"spec.containers[0].lifecycle.stopSignal"}},
		{"unknown stopSignal", pod("  os: {name: linux}\n", "    lifecycle: {stopSignal: SIGFOO}\n"), []string{"spec.containers[0].lifecycle.stopSignal"}},
		{"cpu request above limit", pod("", "    resources: {limits: {cpu: 500m}, requests: {cpu: 1}}\n"), []string{"spec.containers[0].resources.requests"}},
		{"negative memory", pod("", "    resources: {limits: {memory: -1Mi}}\n"), []string{"spec.containers[0].resources.limits[memory]", "spec.containers[0].resources.requests[memory]"}},
		{"hugepages", pod("", "    resources: {limits: {hugepages-2Mi: 64Mi}}\n"), []string{"spec.containers[0].resources.limits[hugepages-2Mi]"}},
		{"gpu", pod("", "    resources: {limits: {nvidia.com/gpu: 1}, requests: {nvidia.com/gpu: 1}}\n"),
			[]string{"spec.containers[0].resources.limits[nvidia.com/gpu]", "spec.containers[0].resources.requests[nvidia.com/gpu]"}},
		{"restartPolicyRules without restartPolicy", pod("", "    restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]\n"), []string{"spec.containers[0].restartPolicy"}},
		{"dnsPolicy None without dnsConfig", pod("  dnsPolicy: None\n", ""), []string{"spec.dnsConfig"}},
		{"bad nameserver", pod("  dnsPolicy: None\n  dnsConfig: {nameservers: [dns.example]}\n", ""), []string{"spec.dnsConfig.nameservers[0]"}},
		{"bad host alias", pod("  hostAliases: [{ip: x, hostnames: [a]}]\n", ""), []string{"spec.hostAliases[0].ip"}},
		{"zero deadline", pod("  activeDeadlineSeconds: 0\n", ""), []string{"spec.activeDeadlineSeconds"}},
		{"huge grace period", pod("  terminationGracePeriodSeconds: 9999999999999\n", ""), []string{"spec.terminationGracePeriodSeconds"}},
		{"bad pull secret", "apiVersion: v1\nkind: Secret\nmetadata: {name: reg}\ntype: kubernetes.io/dockerconfigjson\nstringData: {.dockerconfigjson: '{'}\n---\n" +
			pod("  imagePullSecrets: [{name: reg}]\n", ""), []string{"spec.imagePullSecrets[0].name"}},
		{"duplicate pods", pod("", "") + "---\n" + pod("", ""), []string{"metadata.name"}},
		{"duplicate ConfigMaps", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n",
			[]string{"metadata.name"}},
		{"bad ConfigMap key", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {'a b': x}\n", []string{"data[a b]"}},
		{"Job without restartPolicy", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: busybox}]\n",
			[]string{"spec.template.spec.restartPolicy"}},
		{"Deployment with restartPolicy Never", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n",
			[]string{"spec.template.spec.restartPolicy"}},
		{"Deployment without name", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: busybox}]\n",
			[]string{"metadata.name"}},
		{"Deployment template fields", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      hostUsers: false\n      containers: [{name: c, image: busybox, volumeMounts: [{name: x, mountPath: /x}]}]\n",
			[]string{"spec.template.spec.containers[0].volumeMounts[0].name", "spec.template.spec.hostUsers"}},
		{"StatefulSet volumeClaimTemplates", "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec:\n  volumeClaimTemplates: [{metadata: {name: data}}]\n  template:\n    spec:\n      containers: [{name: c, image: busybox, volumeMounts: [{name: data, mountPath: /data}]}]\n",
			[]string{"spec.template.spec.containers[0].volumeMounts[0].name", "spec.volumeClaimTemplates"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := loadString(kube.Options{}, tt.manifest)
			if err == nil {
				t.Fatalf("accepted: %+v", res)
			}
			is := loadErrors(t, err)
			checkSlice(t, "paths", paths(is), tt.paths)
			for _, i := range is {
				if i.Severity != kube.Error || i.Message == "" {
					t.Errorf("issue %v: want an error with a message", i)
				}
			}
			if t.Failed() {
				t.Log(err)
			}
		})
	}
}

// The API server's own wording for rules a black-box comparison found worded or placed
// differently (pkg/apis/core/validation: validateHandler, validateSleepAction,
// validateInitContainers).
func TestAPIServerWording(t *testing.T) {
	initDup := strings.Replace(pod("", ""), "  containers:", "  initContainers: [{name: c, image: busybox:1.36}]\n  containers:", 1)
	for _, tt := range []struct{ name, manifest, want string }{
		{"two probe handlers", pod("", "    readinessProbe: {exec: {command: [x]}, tcpSocket: {port: 80}}\n"),
			"spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type"},
		{"three hook handlers", pod("", "    lifecycle: {postStart: {exec: {command: [x]}, httpGet: {port: 80}, sleep: {seconds: 1}}}\n"),
			"spec.containers[0].lifecycle.postStart.httpGet: Forbidden: may not specify more than 1 handler type; " +
				"spec.containers[0].lifecycle.postStart.sleep: Forbidden: may not specify more than 1 handler type"},
		{"sleep over the grace period", pod("  terminationGracePeriodSeconds: 5\n", "    lifecycle: {preStop: {sleep: {seconds: 6}}}\n"),
			"spec.containers[0].lifecycle.preStop.sleep: Invalid value: 6: must be non-negative and less than terminationGracePeriodSeconds (5)"},
		{"name in init and app containers", initDup, `spec.initContainers[0].name: Duplicate value: "c"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadString(kube.Options{}, tt.manifest)
			if err == nil {
				t.Fatal("accepted")
			}
			var got []string
			for _, i := range loadErrors(t, err) {
				got = append(got, i.Path+": "+i.Message)
			}
			if strings.Join(got, "; ") != tt.want {
				t.Errorf("got  %q\nwant %q", strings.Join(got, "; "), tt.want)
			}
		})
	}
	// A sleep as long as the grace period is allowed, and zero too.
	for _, secs := range []string{"5", "0"} {
		m := pod("  terminationGracePeriodSeconds: 5\n", "    lifecycle: {preStop: {sleep: {seconds: "+secs+"}}}\n")
		if _, err := loadString(kube.Options{}, m); err != nil {
			t.Errorf("sleep %s s with a 5 s grace period refused: %v", secs, err)
		}
	}
}

// TestWarnings: fields whose absence is safe are dropped with a warning naming them; strict
// mode makes each an error.
func TestWarnings(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		paths    []string
	}{
		{"scheduling", pod("  nodeSelector: {disk: ssd}\n  affinity: {nodeAffinity: {}}\n  tolerations: [{operator: Exists}]\n  priorityClassName: high\n", ""),
			[]string{"spec.affinity", "spec.nodeSelector", "spec.priorityClassName", "spec.tolerations"}},
		{"tty", pod("", "    stdin: true\n    tty: true\n"), []string{"spec.containers[0].stdin", "spec.containers[0].tty"}},
		{"service account", pod("  serviceAccountName: robot\n  automountServiceAccountToken: true\n", ""),
			[]string{"spec.automountServiceAccountToken", "spec.serviceAccountName"}},
		{"pod-level ephemeral storage", pod("  resources: {limits: {ephemeral-storage: 1Gi}}\n", ""), []string{"spec.resources.limits[ephemeral-storage]"}},
		{"missing pull secret", pod("  imagePullSecrets: [{name: regcred}]\n", ""), []string{"spec.imagePullSecrets[0].name"}},
		{"dnsConfig without None", pod("  dnsConfig: {nameservers: [1.1.1.1]}\n", ""), []string{"spec.dnsConfig"}},
		{"Service", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\n" + pod("", ""), []string{"kind"}},
		{"replicas", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers: [{name: c, image: busybox}]\n",
			[]string{"spec.replicas"}},
		{"Job retries", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  backoffLimit: 4\n  parallelism: 2\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n",
			[]string{"spec.backoffLimit", "spec.parallelism"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := loadString(kube.Options{}, tt.manifest)
			if err != nil {
				t.Fatal(err)
			}
			checkSlice(t, "warning paths", paths(res.Warnings), tt.paths)
			for _, w := range res.Warnings {
				if w.Severity != kube.Warning {
					t.Errorf("%v: severity %v", w, w.Severity)
				}
			}
			_, err = loadString(kube.Options{Strict: true}, tt.manifest)
			checkSlice(t, "strict error paths", paths(loadErrors(t, err)), tt.paths)
		})
	}
}

// TestAccepted: values that are what podlife does anyway raise nothing, even in strict mode.
func TestAccepted(t *testing.T) {
	m := pod("  hostUsers: true\n  shareProcessNamespace: false\n  dnsPolicy: ClusterFirst\n  enableServiceLinks: false\n"+
		"  securityContext: {seccompProfile: {type: RuntimeDefault}}\n  schedulerName: default-scheduler\n  affinity: {}\n",
		"    securityContext: {allowPrivilegeEscalation: false, privileged: false}\n    terminationMessagePath: /dev/termination-log\n"+
			"    terminationMessagePolicy: File\n    stdin: false\n    resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}]\n"+
			"    volumeMounts: [{name: v, mountPath: /v, mountPropagation: None, recursiveReadOnly: Disabled}]\n") +
		"  volumes: [{name: v}]\n"
	res, err := loadString(kube.Options{Strict: true}, m)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "warnings", len(res.Warnings), 0)
	check(t, "volume", *onePod(t, res).Volumes[0].EmptyDir, podlife.EmptyDirVolume{})
}

// TestHostNetwork: in the host's network, the host port defaults to the container port.
func TestHostNetwork(t *testing.T) {
	res, err := loadString(kube.Options{}, pod("  hostNetwork: true\n  hostname: ignored\n", "    ports: [{containerPort: 80}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	spec := admitted(t, res)
	check(t, "hostNetwork", spec.HostNetwork, true)
	check(t, "port", spec.Containers[0].Ports[0], podlife.ContainerPort{ContainerPort: 80, HostPort: 80, Protocol: podlife.ProtocolTCP})
}

// TestProcessNamespaces: shareProcessNamespace, hostPID and hostIPC are converted.
func TestProcessNamespaces(t *testing.T) {
	res, err := loadString(kube.Options{}, pod("  shareProcessNamespace: true\n  hostIPC: true\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	spec := onePod(t, res)
	check(t, "shareProcessNamespace", spec.ShareProcessNamespace, true)
	check(t, "hostIPC", spec.HostIPC, true)
	check(t, "hostPID", spec.HostPID, false)
	res, err = loadString(kube.Options{}, pod("  shareProcessNamespace: false\n  hostPID: true\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	spec = onePod(t, res)
	check(t, "shareProcessNamespace", spec.ShareProcessNamespace, false)
	check(t, "hostPID", spec.HostPID, true)
}

// TestConvertErrors: Convert reports paths from the Pod's root, and a nil pod.
func TestConvertErrors(t *testing.T) {
	_, _, err := kube.Convert(nil, kube.Objects{}, kube.Options{})
	checkSlice(t, "nil pod", paths(loadErrors(t, err)), []string{kube.DocumentPath})
}

// TestReadError: a reader's error is returned as is, not as a *LoadError.
func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := kube.Load(context.Background(), kube.Options{}, errReader{boom})
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want %v", err, boom)
	}
	_, err = kube.LoadFiles(context.Background(), kube.Options{}, "testdata/nope.yaml")
	var le *kube.LoadError
	if err == nil || errors.As(err, &le) {
		t.Errorf("missing file: error %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := kube.Load(ctx, kube.Options{}, strings.NewReader(pod("", ""))); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// TestConvertObjects: Convert resolves references against the Objects it is given, and
// reports paths from the Pod's root.
func TestConvertObjects(t *testing.T) {
	optional := true
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "prod", Annotations: map[string]string{"team": "core"}},
		Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{
				{Name: "cfg", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}},
					{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "nope"}, Optional: &optional}},
					{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{
						{Path: "team", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['team']"}},
						{Path: "ns", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}},
					}}},
				}}}},
			},
			Containers: []corev1.Container{{Name: "app", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "cfg", MountPath: "/cfg"}}}},
		},
	}
	objects := kube.Objects{ConfigMaps: map[string]*corev1.ConfigMap{
		"cfg": {ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Data: map[string]string{"a.conf": "x=1"}, BinaryData: map[string][]byte{"b.bin": {0, 1}}},
	}}
	spec, warnings, err := kube.Convert(p, objects, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "warnings", len(warnings), 0)
	f := spec.Volumes[0].Files
	check(t, "medium", f.Medium, podlife.MediumMemory)
	var got []string
	for _, file := range f.Files {
		got = append(got, file.Path+"="+string(file.Data))
	}
	checkSlice(t, "files", got, []string{"a.conf=x=1", "b.bin=\x00\x01", "team=core", "ns=prod"})

	p.Spec.Volumes[0].Projected.Sources[1].Secret.Optional = nil
	_, _, err = kube.Convert(p, objects, kube.Options{})
	is := loadErrors(t, err)
	checkSlice(t, "paths", paths(is), []string{"spec.volumes[0].projected.sources[1].secret.name"})
	check(t, "document", is[0].Document.String(), "Pod/app")
}

// TestRuntimeClassName: spec.runtimeClassName is converted as is (whether the Runtime knows the
// class is decided when the pod starts); absent, the pod has none.
func TestRuntimeClassName(t *testing.T) {
	res, err := loadString(kube.Options{}, pod("  runtimeClassName: crun\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	check(t, "runtimeClassName", onePod(t, res).RuntimeClassName, "crun")
	res, err = loadString(kube.Options{}, pod("", ""))
	if err != nil {
		t.Fatal(err)
	}
	check(t, "runtimeClassName", onePod(t, res).RuntimeClassName, "")
}
