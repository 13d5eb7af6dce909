package kube_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/podlife/podlife/podlife/kube"
)

// withMeta adds lines (indented for metadata) to a manifest made by pod.
func withMeta(manifest, lines string) string {
	return strings.Replace(manifest, "  name: p\n", "  name: p\n"+lines, 1)
}

// withInit adds init containers (a YAML flow list) to a manifest made by pod.
func withInit(manifest, list string) string {
	return strings.Replace(manifest, "  containers:", "  initContainers: "+list+"\n  containers:", 1)
}

// jsonOf is a value as field errors print lists: in JSON.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// cfg is a ConfigMap document to put before a pod that uses it.
const cfg = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {k: v, k2: v}\n---\n"

// Messages of k8s.io/apimachinery's validation helpers, which the API server calls for these
// rules too.
var (
	label1123     = validation.IsDNS1123Label("X")[0]
	subdomain1123 = validation.IsDNS1123Subdomain("X")[0]
	subdomainUS   = validation.IsDNS1123SubdomainWithUnderscore("X")[0]
	qualifiedName = validation.IsQualifiedName("bad key")[0]
	labelValue    = validation.IsValidLabelValue("-x")[0]
	relaxedEnv    = validation.IsRelaxedEnvVarName("A=B")[0]
	configKey     = validation.IsConfigMapKey("a b")[0]
	headerName    = validation.IsHTTPHeaderName("Bad Header")[0]
	portNameMsgs  = validation.IsValidPortName("Bad_Port_Name")
)

// TestAPIServerValidation: a manifest breaking one of the API server's rules for the fields
// podlife reads (k8s.io/kubernetes pkg/apis/core/validation, v1.37.2) gets the errors the API
// server returns: the same path, type and message ("path: Type: detail"); a row wanting no
// error is a manifest both accept. Each group cites the upstream function. make apiserver-diff
// runs the API server's own code on these rows; the rows where podlife differs on purpose are
// named in deliberate (and in docs/kubelet-comparison.md).
func TestAPIServerValidation(t *testing.T) {
	searches33 := make([]string, 33)
	for i := range searches33 {
		searches33[i] = fmt.Sprintf("s%d.example", i)
	}
	long := strings.Repeat("a", 250)
	searchesLong := []string{long, long, long, long, long, long, long, long, long}
	flow := func(ss []string) string { return "[" + strings.Join(ss, ", ") + "]" }
	const (
		nodeTerms = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
		podTerm   = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
	)
	tests := []apiCase{
		// ValidateObjectMeta → ValidateLabels, ValidateAnnotations (apimachinery): errors at
		// the map's path, not at the key.
		{"label key", withMeta(pod("", ""), "  labels: {'bad key': v}\n"),
			[]string{`metadata.labels: Invalid value: "bad key": ` + qualifiedName}},
		{"label value", withMeta(pod("", ""), "  labels: {k: -x}\n"),
			[]string{`metadata.labels: Invalid value: "-x": ` + labelValue}},
		{"annotation key", withMeta(pod("", ""), "  annotations: {'bad key': v}\n"),
			[]string{`metadata.annotations: Invalid value: "bad key": ` + qualifiedName}},
		{"annotations too long", withMeta(pod("", ""), "  annotations: {k: "+strings.Repeat("x", 256*1024)+"}\n"),
			[]string{`metadata.annotations: Too long: may not be more than 262144 bytes`}},
		{"namespace", withMeta(pod("", ""), "  namespace: Prod\n"),
			[]string{`metadata.namespace: Invalid value: "Prod": ` + label1123}},

		// ValidateVolumes, validateVolumeSource.
		{"volume name missing", pod("  volumes: [{emptyDir: {}}]\n", ""), []string{`spec.volumes[0].name: Required value`}},
		{"volume name", pod("  volumes: [{name: V}]\n", ""), []string{`spec.volumes[0].name: Invalid value: "V": ` + label1123}},
		{"volume name duplicate", pod("  volumes: [{name: v}, {name: v}]\n", ""), []string{`spec.volumes[1].name: Duplicate value: "v"`}},
		{"two volume sources", pod("  volumes: [{name: v, emptyDir: {}, hostPath: {path: /x}}]\n", ""),
			[]string{`spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type`}},
		{"three volume sources", pod("  volumes: [{name: v, emptyDir: {}, hostPath: {path: /x}, configMap: {name: cfg}}]\n", ""),
			[]string{`spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type`,
				`spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type`}},
		{"negative emptyDir size", pod("  volumes: [{name: v, emptyDir: {sizeLimit: -1Mi}}]\n", ""),
			[]string{`spec.volumes[0].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity`}},
		// validateHostPathVolumeSource, validatePathNoBacksteps, validateHostPathType.
		{"hostPath path missing", pod("  volumes: [{name: v, hostPath: {path: ''}}]\n", ""), []string{`spec.volumes[0].hostPath.path: Required value`}},
		{"hostPath backstep", pod("  volumes: [{name: v, hostPath: {path: /a/../b}}]\n", ""),
			[]string{`spec.volumes[0].hostPath.path: Invalid value: "/a/../b": must not contain '..'`}},
		{"hostPath unknown type", pod("  volumes: [{name: v, hostPath: {path: /x, type: Pipe}}]\n", ""),
			[]string{`spec.volumes[0].hostPath.type: Unsupported value: "Pipe": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"`}},
		// validateImageVolumeSource, validatePullPolicy.
		{"image volume reference missing", pod("  volumes: [{name: v, image: {pullPolicy: Never}}]\n", ""),
			[]string{`spec.volumes[0].image.reference: Required value`}},
		{"image volume pullPolicy", pod("  volumes: [{name: v, image: {reference: busybox:1.36, pullPolicy: Sometimes}}]\n", ""),
			[]string{`spec.volumes[0].image.pullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`}},
		{"image volume", pod("  volumes: [{name: v, image: {reference: busybox:1.36}}]\n", "    volumeMounts: [{name: v, mountPath: /img, subPath: etc}]\n"), nil},
		// validateConfigMapVolumeSource, validateSecretVolumeSource, validateKeyToPath,
		// ValidateLocalNonReservedPath.
		{"configMap name missing", pod("  volumes: [{name: v, configMap: {}}]\n", ""), []string{`spec.volumes[0].configMap.name: Required value`}},
		{"secret name missing", pod("  volumes: [{name: v, secret: {}}]\n", ""), []string{`spec.volumes[0].secret.secretName: Required value`}},
		{"defaultMode", cfg + pod("  volumes: [{name: v, configMap: {name: cfg, defaultMode: 4096}}]\n", ""),
			[]string{`spec.volumes[0].configMap.defaultMode: Invalid value: 4096: must be a number between 0 and 0777 (octal), both inclusive`}},
		{"item mode", cfg + pod("  volumes: [{name: v, configMap: {name: cfg, items: [{key: k, path: k, mode: -1}]}}]\n", ""),
			[]string{`spec.volumes[0].configMap.items[0].mode: Invalid value: -1: must be a number between 0 and 0777 (octal), both inclusive`}},
		{"item key missing", cfg + pod("  volumes: [{name: v, configMap: {name: cfg, items: [{path: k}]}}]\n", ""),
			[]string{`spec.volumes[0].configMap.items[0].key: Required value`}},
		{"item path missing", cfg + pod("  volumes: [{name: v, configMap: {name: cfg, items: [{key: k}]}}]\n", ""),
			[]string{`spec.volumes[0].configMap.items[0].path: Required value`}},
		{"item path absolute", cfg + pod("  volumes: [{name: v, configMap: {name: cfg, items: [{key: k, path: /k}]}}]\n", ""),
			[]string{`spec.volumes[0].configMap.items[0].path: Invalid value: "/k": must be a relative path`}},
		{"item path backstep", cfg + pod("  volumes: [{name: v, configMap: {name: cfg, items: [{key: k, path: a/../k}]}}]\n", ""),
			[]string{`spec.volumes[0].configMap.items[0].path: Invalid value: "a/../k": must not contain '..'`}},
		{"item path starting with ..", cfg + pod("  volumes: [{name: v, configMap: {name: cfg, items: [{key: k, path: ..k}]}}]\n", ""),
			[]string{`spec.volumes[0].configMap.items[0].path: Invalid value: "..k": must not start with '..'`}},
		// validateProjectionSources.
		{"projected source with two types", cfg + pod("  volumes: [{name: v, projected: {sources: [{configMap: {name: cfg}, downwardAPI: {items: [{path: nm, fieldRef: {fieldPath: metadata.name}}]}}]}}]\n", ""),
			[]string{`spec.volumes[0].projected.sources[0]: Forbidden: may not specify more than 1 volume type per source`}},
		{"projected duplicate paths", cfg + pod("  volumes: [{name: v, projected: {sources: [{configMap: {name: cfg, items: [{key: k, path: x}]}}, {configMap: {name: cfg, items: [{key: k2, path: x}]}}]}}]\n", ""),
			[]string{`spec.volumes[0].projected: Invalid value: "cfg": conflicting duplicate paths`}},

		// validateContainers, validateInitContainers, validateContainerCommon.
		{"no containers", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n", []string{`spec.containers: Required value`}},
		{"container name missing", strings.Replace(pod("", ""), "- name: c\n", "- name: ''\n", 1), []string{`spec.containers[0].name: Required value`}},
		{"container name", strings.Replace(pod("", ""), "- name: c\n", "- name: Web\n", 1), []string{`spec.containers[0].name: Invalid value: "Web": ` + label1123}},
		{"container name duplicate", pod("", "  - {name: c, image: busybox}\n"), []string{`spec.containers[1].name: Duplicate value: "c"`}},
		{"image missing", strings.Replace(pod("", ""), "image: busybox:1.36", "image: ''", 1), []string{`spec.containers[0].image: Required value`}},
		{"image whitespace", strings.Replace(pod("", ""), "image: busybox:1.36", "image: ' busybox'", 1),
			[]string{`spec.containers[0].image: Invalid value: " busybox": must not have leading or trailing whitespace`}},
		{"imagePullPolicy", pod("", "    imagePullPolicy: Sometimes\n"),
			[]string{`spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`}},
		// validateContainerRestartPolicy, validateInitContainerRestartPolicy (ContainerRestartRules on).
		{"restartPolicy on app container", pod("", "    restartPolicy: Sometimes\n"),
			[]string{`spec.containers[0].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"`}},
		{"restartPolicy and rules on app container", pod("", "    restartPolicy: Never\n    restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]\n"), nil},
		{"init restartPolicy Never", withInit(pod("", ""), "[{name: i, image: busybox, restartPolicy: Never}]"), nil},
		{"init restartPolicy", withInit(pod("", ""), "[{name: i, image: busybox, restartPolicy: Sometimes}]"),
			[]string{`spec.initContainers[0].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"`}},
		{"rules without restartPolicy", pod("", "    restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]\n"),
			[]string{`spec.containers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used`}},
		{"init rules without restartPolicy", withInit(pod("", ""), "[{name: i, image: busybox, restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]}]"),
			[]string{`spec.initContainers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used`}},
		// Allowed with RestartAllContainersOnContainerExits (beta, on since 1.36).
		{"sidecar rules", withInit(pod("", ""), "[{name: i, image: busybox, restartPolicy: Always, restartPolicyRules: [{action: RestartAllContainers, exitCodes: {operator: In, values: [42]}}]}]"),
			nil},
		{"rule action", pod("", "    restartPolicy: Never\n    restartPolicyRules: [{action: Ignore, exitCodes: {operator: In, values: [42]}}]\n"),
			[]string{`spec.containers[0].restartPolicyRules[0].action: Unsupported value: "Ignore": supported values: "Restart", "RestartAllContainers"`}},
		{"rule exitCodes missing", pod("", "    restartPolicy: Never\n    restartPolicyRules: [{action: Restart}]\n"),
			[]string{`spec.containers[0].restartPolicyRules[0].exitCodes: Required value: must be specified`}},
		{"rule operator", pod("", "    restartPolicy: Never\n    restartPolicyRules: [{action: Restart, exitCodes: {operator: Is, values: [42]}}]\n"),
			[]string{`spec.containers[0].restartPolicyRules[0].exitCodes.operator: Unsupported value: "Is": supported values: "In", "NotIn"`}},
		{"too many rules", pod("", "    restartPolicy: Never\n    restartPolicyRules: ["+strings.Repeat("{action: Restart, exitCodes: {operator: In, values: [1]}}, ", 20)+"{action: Restart, exitCodes: {operator: In, values: [1]}}]\n"),
			[]string{`spec.containers[0].restartPolicyRules: Too many: 21: must have at most 20 items`}},
		{"too many exit codes", pod("", "    restartPolicy: Never\n    restartPolicyRules: [{action: Restart, exitCodes: {operator: NotIn, values: ["+strings.Repeat("1, ", 255)+"1]}}]\n"),
			[]string{`spec.containers[0].restartPolicyRules[0].exitCodes.values: Too many: 256: must have at most 255 items`}},
		{"init lifecycle", withInit(pod("", ""), "[{name: i, image: busybox, lifecycle: {postStart: {exec: {command: [x]}}}}]"),
			[]string{`spec.initContainers[0].lifecycle: Forbidden: may not be set for init containers without restartPolicy=Always`}},
		{"init probe", withInit(pod("", ""), "[{name: i, image: busybox, livenessProbe: {exec: {command: [x]}}}]"),
			[]string{`spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always`}},

		// validateContainerPorts.
		{"containerPort missing", pod("", "    ports: [{name: http}]\n"), []string{`spec.containers[0].ports[0].containerPort: Required value`}},
		{"containerPort range", pod("", "    ports: [{containerPort: 70000}]\n"),
			[]string{`spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`}},
		{"hostPort range", pod("", "    ports: [{containerPort: 80, hostPort: -1}]\n"),
			[]string{`spec.containers[0].ports[0].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive`}},
		{"port name", pod("", "    ports: [{name: Bad_Port_Name, containerPort: 80}]\n"), func() []string {
			var out []string
			for _, m := range portNameMsgs {
				out = append(out, `spec.containers[0].ports[0].name: Invalid value: "Bad_Port_Name": `+m)
			}
			return out
		}()},
		{"port name duplicate", pod("", "    ports: [{name: http, containerPort: 80}, {name: http, containerPort: 81}]\n"),
			[]string{`spec.containers[0].ports[1].name: Duplicate value: "http"`}},
		{"protocol", pod("", "    ports: [{containerPort: 80, protocol: ICMP}]\n"),
			[]string{`spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`}},
		// checkHostPortConflicts: across app containers; each init container on its own.
		{"hostPort conflict", pod("", "    ports: [{containerPort: 80, hostPort: 8080}]\n  - {name: d, image: busybox, ports: [{containerPort: 81, hostPort: 8080}]}\n"),
			[]string{`spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"`}},
		{"hostPort conflict with hostIP", pod("", "    ports: [{containerPort: 80, hostPort: 8080, hostIP: 127.0.0.1, protocol: UDP}, {containerPort: 81, hostPort: 8080, hostIP: 127.0.0.1, protocol: UDP}]\n"),
			[]string{`spec.containers[0].ports[1].hostPort: Duplicate value: "UDP/127.0.0.1/8080"`}},
		// validatePodHostNetworkDeps.
		{"hostNetwork hostPort", pod("  hostNetwork: true\n", "    ports: [{containerPort: 80, hostPort: 8080}]\n"),
			[]string{"spec.containers[0].ports[0].hostPort: Invalid value: 8080: must match `containerPort` when `hostNetwork` is true"}},

		{"hostNetwork hostPort of an init container", strings.Replace(pod("  hostNetwork: true\n", ""), "  containers:",
			"  initContainers: [{name: i, image: busybox, ports: [{containerPort: 80, hostPort: 81}]}]\n  containers:", 1), nil},

		// ValidateEnv, validateEnvVarValueFrom, validateObjectFieldSelector,
		// validateConfigMapKeySelector; names are relaxed (RelaxedEnvironmentVariableValidation, GA).
		{"env name missing", pod("", "    env: [{value: x}]\n"), []string{`spec.containers[0].env[0].name: Required value`}},
		{"env name", pod("", "    env: [{name: A=B, value: x}]\n"), []string{`spec.containers[0].env[0].name: Invalid value: "A=B": ` + relaxedEnv}},
		{"env valueFrom empty", pod("", "    env: [{name: X, valueFrom: {}}]\n"),
			[]string{"spec.containers[0].env[0].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"}},
		{"env value and valueFrom", pod("", "    env: [{name: X, value: a, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]\n"),
			[]string{"spec.containers[0].env[0].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty"}},
		{"env two sources", cfg + pod("", "    env: [{name: X, valueFrom: {fieldRef: {fieldPath: metadata.name}, configMapKeyRef: {name: cfg, key: k}}}]\n"),
			[]string{`spec.containers[0].env[0].valueFrom: Invalid value: "": may not have more than one field specified at a time`}},
		{"env fieldPath", pod("", "    env: [{name: X, valueFrom: {fieldRef: {fieldPath: spec.foo}}}]\n"),
			[]string{`spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: "spec.foo": error converting fieldPath: field label not supported: spec.foo`}},
		{"env fieldPath not for env", pod("", "    env: [{name: X, valueFrom: {fieldRef: {fieldPath: metadata.labels}}}]\n"),
			[]string{`spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"`}},
		{"env fieldPath subscript", pod("", "    env: [{name: X, valueFrom: {fieldRef: {fieldPath: \"spec.nodeName['x']\"}}}]\n"),
			[]string{`spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: "spec.nodeName['x']": error converting fieldPath: field label does not support subscript: spec.nodeName['x']`}},
		{"env fieldPath key", pod("", "    env: [{name: X, valueFrom: {fieldRef: {fieldPath: \"metadata.labels['bad key']\"}}}]\n"),
			[]string{`spec.containers[0].env[0].valueFrom.fieldRef: Invalid value: "bad key": ` + qualifiedName}},
		{"downwardAPI fieldPath", pod("  volumes: [{name: v, downwardAPI: {items: [{path: x, fieldRef: {fieldPath: spec.nodeName}}]}}]\n", ""),
			[]string{`spec.volumes[0].downwardAPI.items[0].fieldRef.fieldPath: Unsupported value: "spec.nodeName": supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"`}},
		{"env configMap key missing", cfg + pod("", "    env: [{name: X, valueFrom: {configMapKeyRef: {name: cfg}}}]\n"),
			[]string{`spec.containers[0].env[0].valueFrom.configMapKeyRef.key: Required value`}},
		{"env configMap key", cfg + pod("", "    env: [{name: X, valueFrom: {configMapKeyRef: {name: cfg, key: a b}}}]\n"),
			[]string{`spec.containers[0].env[0].valueFrom.configMapKeyRef.key: Invalid value: "a b": ` + configKey}},
		{"env secret name", pod("", "    env: [{name: X, valueFrom: {secretKeyRef: {name: Bad, key: k}}}]\n"),
			[]string{`spec.containers[0].env[0].valueFrom.secretKeyRef.name: Invalid value: "Bad": ` + subdomain1123}},
		// validateContainerResourceFieldSelector, validateContainerResourceDivisor,
		// validateDownwardAPIVolumeFile.
		{"env resource", pod("", "    env: [{name: X, valueFrom: {resourceFieldRef: {resource: limits.foo}}}]\n"),
			[]string{`spec.containers[0].env[0].valueFrom.resourceFieldRef.resource: Unsupported value: "limits.foo": supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"`}},
		{"env resource divisor", pod("", "    env: [{name: X, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 2m}}}]\n"),
			[]string{`spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.cpu": only divisor's values 1m and 1 are supported with the cpu resource`}},
		{"downwardAPI resource without container", pod("  volumes: [{name: v, downwardAPI: {items: [{path: x, resourceFieldRef: {resource: limits.cpu}}]}}]\n", ""),
			[]string{`spec.volumes[0].downwardAPI.items[0].resourceFieldRef.containerName: Required value`}},

		// ValidateEnvFrom. Deliberate difference: the missing source is reported at the entry
		// (the API server reports it at the list, envFrom).
		{"envFrom prefix", cfg + pod("", "    envFrom: [{prefix: A=, configMapRef: {name: cfg}}]\n"),
			[]string{`spec.containers[0].envFrom[0].prefix: Invalid value: "A=": ` + relaxedEnv}},
		{"envFrom without source", pod("", "    envFrom: [{prefix: A_}]\n"),
			[]string{"spec.containers[0].envFrom[0]: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`"}},
		{"envFrom name", pod("", "    envFrom: [{secretRef: {name: Bad}}]\n"),
			[]string{`spec.containers[0].envFrom[0].secretRef.name: Invalid value: "Bad": ` + subdomain1123}},
		{"envFrom name missing", pod("", "    envFrom: [{configMapRef: {}}]\n"), []string{`spec.containers[0].envFrom[0].configMapRef.name: Required value`}},

		// ValidateVolumeMounts. Deliberate difference: subPath errors keep the mount's index
		// (the API server reports them at volumeMounts.subPath).
		{"mount name missing", pod("  volumes: [{name: v}]\n", "    volumeMounts: [{mountPath: /v}]\n"),
			[]string{`spec.containers[0].volumeMounts[0].name: Required value`, `spec.containers[0].volumeMounts[0].name: Not found: ""`}},
		{"mount volume not found", pod("", "    volumeMounts: [{name: data, mountPath: /data}]\n"),
			[]string{`spec.containers[0].volumeMounts[0].name: Not found: "data"`}},
		{"mountPath missing", pod("  volumes: [{name: v}]\n", "    volumeMounts: [{name: v}]\n"),
			[]string{`spec.containers[0].volumeMounts[0].mountPath: Required value`}},
		{"mountPath duplicate", pod("  volumes: [{name: v}, {name: w}]\n", "    volumeMounts: [{name: v, mountPath: /v}, {name: w, mountPath: /v}]\n"),
			[]string{`spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/v": must be unique`}},
		{"subPath absolute", pod("  volumes: [{name: v}]\n", "    volumeMounts: [{name: v, mountPath: /v, subPath: /x}]\n"),
			[]string{`spec.containers[0].volumeMounts[0].subPath: Invalid value: "/x": must be a relative path`}},
		{"subPath backstep", pod("  volumes: [{name: v}]\n", "    volumeMounts: [{name: v, mountPath: /v, subPath: a/../../x}]\n"),
			[]string{`spec.containers[0].volumeMounts[0].subPath: Invalid value: "a/../../x": must not contain '..'`}},
		{"subPath and subPathExpr", pod("  volumes: [{name: v}]\n", "    volumeMounts: [{name: v, mountPath: /a, subPath: x, subPathExpr: yy}]\n"),
			[]string{`spec.containers[0].volumeMounts[0].subPathExpr: Invalid value: "yy": subPathExpr and subPath are mutually exclusive`}},

		// ValidateContainerResourceRequirements: request above limit at "requests" (no key).
		{"request above limit", pod("", "    resources: {limits: {cpu: 500m}, requests: {cpu: 1}}\n"),
			[]string{`spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m`}},
		{"memory request above limit", pod("", "    resources: {limits: {memory: 64Mi}, requests: {memory: 128Mi}}\n"),
			[]string{`spec.containers[0].resources.requests: Invalid value: "128Mi": must be less than or equal to memory limit of 64Mi`}},
		// The API defaults a missing request to the limit before validating both.
		{"negative limit", pod("", "    resources: {limits: {memory: -1Mi}}\n"),
			[]string{`spec.containers[0].resources.limits[memory]: Invalid value: "-1Mi": must be greater than or equal to 0`,
				`spec.containers[0].resources.requests[memory]: Invalid value: "-1Mi": must be greater than or equal to 0`}},
		{"negative request", pod("", "    resources: {requests: {cpu: -1}}\n"),
			[]string{`spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0`}},

		// validateHandler, validateExecAction, validateHTTPGetAction, ValidatePortNumOrName,
		// validateSleepAction.
		{"exec without command", pod("", "    livenessProbe: {exec: {}}\n"), []string{`spec.containers[0].livenessProbe.exec.command: Required value`}},
		{"no handler", pod("", "    lifecycle: {preStop: {}}\n"), []string{`spec.containers[0].lifecycle.preStop: Required value: must specify a handler type`}},
		{"httpGet port", pod("", "    livenessProbe: {httpGet: {port: 0}}\n"),
			[]string{`spec.containers[0].livenessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive`}},
		{"httpGet port name", pod("", "    lifecycle: {postStart: {httpGet: {port: Bad_Port_Name}}}\n"), func() []string {
			var out []string
			for _, m := range portNameMsgs {
				out = append(out, `spec.containers[0].lifecycle.postStart.httpGet.port: Invalid value: "Bad_Port_Name": `+m)
			}
			return out
		}()},
		{"httpGet scheme", pod("", "    readinessProbe: {httpGet: {port: 80, scheme: FTP}}\n"),
			[]string{`spec.containers[0].readinessProbe.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"`}},
		{"httpGet header", pod("", "    readinessProbe: {httpGet: {port: 80, httpHeaders: [{name: Bad Header, value: x}]}}\n"),
			[]string{`spec.containers[0].readinessProbe.httpGet.httpHeaders: Invalid value: "Bad Header": ` + headerName}},
		{"tcpSocket port", pod("", "    readinessProbe: {tcpSocket: {port: 65536}}\n"),
			[]string{`spec.containers[0].readinessProbe.tcpSocket.port: Invalid value: 65536: must be between 1 and 65535, inclusive`}},
		{"grpc port", pod("", "    livenessProbe: {grpc: {port: 0}}\n"),
			[]string{`spec.containers[0].livenessProbe.grpc.port: Invalid value: 0: must be between 1 and 65535, inclusive`}},
		{"negative sleep", pod("", "    lifecycle: {preStop: {sleep: {seconds: -1}}}\n"),
			[]string{`spec.containers[0].lifecycle.preStop.sleep: Invalid value: -1: must be non-negative and less than terminationGracePeriodSeconds (30)`}},
		// validateStopSignal.
		{"stopSignal without os", pod("", "    lifecycle: {stopSignal: SIGUSR1}\n"),
			[]string{"spec.containers[0].lifecycle.stopSignal: Forbidden: may not be set for containers with empty `spec.os.name`"}},
		{"stopSignal", pod("  os: {name: linux}\n", "    lifecycle: {stopSignal: SIGFOO}\n"),
			[]string{`spec.containers[0].lifecycle.stopSignal: Unsupported value: "SIGFOO": supported values: ` + quotedSorted(linuxSignals)}},
		// validateProbe, validateLivenessProbe, validateReadinessProbe, validateStartupProbe.
		{"negative initialDelaySeconds", pod("", "    livenessProbe: {exec: {command: [x]}, initialDelaySeconds: -1}\n"),
			[]string{`spec.containers[0].livenessProbe.initialDelaySeconds: Invalid value: -1: must be greater than or equal to 0`}},
		{"negative timeoutSeconds", pod("", "    livenessProbe: {exec: {command: [x]}, timeoutSeconds: -1}\n"),
			[]string{`spec.containers[0].livenessProbe.timeoutSeconds: Invalid value: -1: must be greater than or equal to 0`}},
		{"negative periodSeconds", pod("", "    readinessProbe: {exec: {command: [x]}, periodSeconds: -1}\n"),
			[]string{`spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0`}},
		{"negative failureThreshold", pod("", "    readinessProbe: {exec: {command: [x]}, failureThreshold: -1}\n"),
			[]string{`spec.containers[0].readinessProbe.failureThreshold: Invalid value: -1: must be greater than or equal to 0`}},
		{"liveness successThreshold", pod("", "    livenessProbe: {exec: {command: [x]}, successThreshold: 2}\n"),
			[]string{`spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1`}},
		{"startup successThreshold", pod("", "    startupProbe: {exec: {command: [x]}, successThreshold: 3}\n"),
			[]string{`spec.containers[0].startupProbe.successThreshold: Invalid value: 3: must be 1`}},
		{"readiness terminationGracePeriodSeconds", pod("", "    readinessProbe: {exec: {command: [x]}, terminationGracePeriodSeconds: 5}\n"),
			[]string{`spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes`}},
		{"probe terminationGracePeriodSeconds", pod("", "    livenessProbe: {exec: {command: [x]}, terminationGracePeriodSeconds: 0}\n"),
			[]string{`spec.containers[0].livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0`}},

		// ValidatePodSpec: validateRestartPolicy, validateDNSPolicy, activeDeadlineSeconds,
		// hostname, validateOS.
		{"restartPolicy", pod("  restartPolicy: Sometimes\n", ""),
			[]string{`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`}},
		{"dnsPolicy", pod("  dnsPolicy: Cluster\n", ""),
			[]string{`spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`}},
		{"activeDeadlineSeconds zero", pod("  activeDeadlineSeconds: 0\n", ""),
			[]string{`spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive`}},
		{"activeDeadlineSeconds too large", pod("  activeDeadlineSeconds: 2147483648\n", ""),
			[]string{`spec.activeDeadlineSeconds: Invalid value: 2147483648: must be between 1 and 2147483647, inclusive`}},
		{"hostname", pod("  hostname: Web_1\n", ""), []string{`spec.hostname: Invalid value: "Web_1": ` + label1123}},
		{"hostname with a dot", pod("  hostname: web.example\n", ""), []string{`spec.hostname: Invalid value: "web.example": must not contain dots`}},
		{"hostnameOverride subdomain", pod("  hostnameOverride: override.example.host\n", ""), nil},
		{"hostnameOverride", pod("  hostnameOverride: Web_1\n", ""), []string{`spec.hostnameOverride: Invalid value: "Web_1": ` + subdomain1123}},
		{"hostnameOverride too long", pod("  hostnameOverride: "+strings.Repeat("a", 65)+"\n", ""),
			[]string{`spec.hostnameOverride: Too long: may not be more than 64 bytes`}},
		{"os name missing", pod("  os: {name: ''}\n", ""), []string{`spec.os.name: Required value`}},
		{"os name unknown", pod("  os: {name: plan9}\n", ""), []string{`spec.os: Unsupported value: "plan9": supported values: "linux", "windows"`}},
		// validatePodDNSConfig (RelaxedDNSSearchValidation, GA: "_" allowed, "." alone allowed).
		{"dnsConfig without nameservers", pod("  dnsPolicy: None\n  dnsConfig: {searches: [a.example]}\n", ""),
			[]string{"spec.dnsConfig.nameservers: Required value: must provide at least one DNS nameserver when `dnsPolicy` is None"}},
		{"four nameservers", pod("  dnsPolicy: None\n  dnsConfig: {nameservers: [1.1.1.1, 1.1.1.2, 1.1.1.3, 1.1.1.4]}\n", ""),
			[]string{`spec.dnsConfig.nameservers: Invalid value: ["1.1.1.1","1.1.1.2","1.1.1.3","1.1.1.4"]: must not have more than 3 nameservers`}},
		{"nameserver", pod("  dnsPolicy: None\n  dnsConfig: {nameservers: [dns.example]}\n", ""),
			[]string{`spec.dnsConfig.nameservers[0]: Invalid value: "dns.example": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{"33 searches", pod("  dnsPolicy: None\n  dnsConfig: {nameservers: [1.1.1.1], searches: "+flow(searches33)+"}\n", ""),
			[]string{fmt.Sprintf(`spec.dnsConfig.searches: Invalid value: %s: must not have more than 32 search paths`, jsonOf(searches33))}},
		{"search list too long", pod("  dnsPolicy: None\n  dnsConfig: {nameservers: [1.1.1.1], searches: "+flow(searchesLong)+"}\n", ""),
			[]string{fmt.Sprintf(`spec.dnsConfig.searches: Invalid value: %s: must not have more than 2048 characters (including spaces) in the search list`, jsonOf(searchesLong))}},
		{"search", pod("  dnsPolicy: None\n  dnsConfig: {nameservers: [1.1.1.1], searches: [ok_1.example., ., 'a!b']}\n", ""),
			[]string{`spec.dnsConfig.searches[2]: Invalid value: "a!b": ` + subdomainUS}},
		{"dns option name missing", pod("  dnsPolicy: None\n  dnsConfig: {nameservers: [1.1.1.1], options: [{value: '2'}]}\n", ""),
			[]string{`spec.dnsConfig.options[0]: Required value: must not be empty`}},
		{"dnsConfig checked without None", pod("  dnsConfig: {nameservers: [1.1.1.1, 1.1.1.2, 1.1.1.3, 1.1.1.4]}\n", ""),
			[]string{`spec.dnsConfig.nameservers: Invalid value: ["1.1.1.1","1.1.1.2","1.1.1.3","1.1.1.4"]: must not have more than 3 nameservers`}},
		// ValidateHostAliases.
		{"host alias ip", pod("  hostAliases: [{ip: x, hostnames: [a]}]\n", ""),
			[]string{`spec.hostAliases[0].ip: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{"host alias hostname", pod("  hostAliases: [{ip: 10.0.0.1, hostnames: [A_b]}]\n", ""),
			[]string{`spec.hostAliases[0].hostnames[0]: Invalid value: "A_b": ` + subdomain1123}},

		// validatePodSpecSecurityContext, ValidateSecurityContext.
		{"runAsUser", pod("  securityContext: {runAsUser: -1}\n", ""),
			[]string{`spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive`}},
		{"container runAsGroup", pod("", "    securityContext: {runAsGroup: -1}\n"),
			[]string{`spec.containers[0].securityContext.runAsGroup: Invalid value: -1: must be between 0 and 2147483647, inclusive`}},
		{"fsGroup", pod("  securityContext: {fsGroup: -1}\n", ""),
			[]string{`spec.securityContext.fsGroup: Invalid value: -1: must be between 0 and 2147483647, inclusive`}},
		{"supplementalGroups", pod("  securityContext: {supplementalGroups: [1, -1]}\n", ""),
			[]string{`spec.securityContext.supplementalGroups[1]: Invalid value: -1: must be between 0 and 2147483647, inclusive`}},
		{"seccomp Localhost without profile", pod("  securityContext: {seccompProfile: {type: Localhost}}\n", ""),
			[]string{`spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost`}},
		{"seccomp profile without Localhost", pod("", "    securityContext: {seccompProfile: {type: RuntimeDefault, localhostProfile: x.json}}\n"),
			[]string{`spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value: {"Type":"RuntimeDefault","LocalhostProfile":"x.json"}: can only be set when seccomp type is Localhost`}},
		{"seccomp type", pod("  securityContext: {seccompProfile: {type: Strict}}\n", ""),
			[]string{`spec.securityContext.seccompProfile.type: Unsupported value: "Strict": supported values: "Localhost", "RuntimeDefault", "Unconfined"`}},
		{"sysctl name", pod("  securityContext: {sysctls: [{name: 'kernel shm', value: '1'}]}\n", ""),
			[]string{`spec.securityContext.sysctls[0].name: Invalid value: "kernel shm": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`}},
		{"seccomp profile without type", pod("  securityContext: {seccompProfile: {localhostProfile: x.json}}\n", ""),
			[]string{`spec.securityContext.seccompProfile.type: Required value: type is required when seccompProfile is set`,
				`spec.securityContext.seccompProfile.localhostProfile: Invalid value: {"Type":"","LocalhostProfile":"x.json"}: can only be set when seccomp type is Localhost`}},
		{"seccomp absolute profile", pod("  securityContext: {seccompProfile: {type: Localhost, localhostProfile: /x.json}}\n", ""),
			[]string{`spec.securityContext.seccompProfile.localhostProfile: Invalid value: "/x.json": must be a relative path`}},
		{"procMount", pod("", "    securityContext: {procMount: Foo}\n"),
			[]string{`spec.containers[0].securityContext.procMount: Unsupported value: "Foo": supported values: "Default", "Unmasked"`}},
		{"net sysctl with hostNetwork", pod("  hostNetwork: true\n  securityContext: {sysctls: [{name: net.ipv4.ip_unprivileged_port_start, value: '0'}]}\n", ""),
			[]string{`spec.securityContext.sysctls[0].name: Invalid value: "net.ipv4.ip_unprivileged_port_start": may not be specified when 'hostNetwork' is true`}},
		{"sysctl duplicate", pod("  securityContext: {sysctls: [{name: kernel.shm_rmid_forced, value: '1'}, {name: kernel.shm_rmid_forced, value: '0'}]}\n", ""),
			[]string{`spec.securityContext.sysctls[1].name: Duplicate value: "kernel.shm_rmid_forced"`}},

		// ValidateTolerations (a field podlife drops with a warning).
		{"toleration without key", pod("  tolerations: [{operator: Equal}]\n", ""),
			[]string{"spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\""}},
		{"toleration fields", pod("  tolerations: [{key: 'bad key', operator: Foo, effect: Bar, tolerationSeconds: 5}]\n", ""),
			[]string{"spec.tolerations[0].effect: Invalid value: \"Bar\": effect must be 'NoExecute' when `tolerationSeconds` is set",
				`spec.tolerations[0].effect: Unsupported value: "Bar": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
				`spec.tolerations[0].key: Invalid value: "bad key": ` + qualifiedName,
				`spec.tolerations[0].operator: Unsupported value: "Foo": supported values: "Equal", "Exists"`}},
		{"toleration Exists with value", pod("  tolerations: [{key: k, operator: Exists, value: v}]\n", ""),
			[]string{"spec.tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'"}},
		{"toleration Gt", pod("  tolerations: [{key: k, operator: Gt, value: '5'}]\n", ""),
			[]string{`spec.tolerations[0].operator: Unsupported value: "Gt": supported values: "Equal", "Exists", "Lt", "Gt"`}},
		{"toleration value", pod("  tolerations: [{key: k, value: '-x'}]\n", ""),
			[]string{`spec.tolerations[0].operator: Invalid value: "-x": ` + labelValue}},

		// validateReadinessGates, validatePodResources, validatePodResourceConsistency.
		{"readinessGates", pod("  readinessGates: [{conditionType: 'bad type'}]\n", ""),
			[]string{`spec.readinessGates[0].conditionType: Invalid value: "bad type": ` + qualifiedName}},
		{"pod request above limit", pod("  resources: {requests: {cpu: 2}, limits: {cpu: 1}}\n", ""),
			[]string{`spec.resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`}},
		{"pod request below containers'", pod("  resources: {requests: {cpu: 100m}}\n", "    resources: {requests: {cpu: 200m}}\n"),
			[]string{`spec.resources.requests[cpu]: Invalid value: "100m": must be greater than or equal to aggregate container requests of 200m`}},
		{"container limit above pod's", pod("  resources: {limits: {memory: 64Mi}}\n", "    resources: {limits: {memory: 128Mi}}\n"),
			[]string{`spec.resources.containers[0][memory].limits: Invalid value: "128Mi": must be less than or equal to pod limits of 64Mi`}},

		// validateAffinity (a field podlife drops with a warning): validateNodeAffinity,
		// ValidateNodeSelector, ValidatePreferredSchedulingTerms, validatePodAffinityTerm.
		{"node affinity without terms", pod("  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}}\n", ""),
			[]string{nodeTerms + `: Required value: must have at least one node selector term`}},
		{"node selector requirements", pod("  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: k, operator: In}, {key: k, operator: Exists, values: [a]}, {key: k, operator: Gt, values: ['1', '2']}, {key: k, operator: Foo}, {key: k, operator: In, values: ['-x']}], matchFields: [{key: spec.x, operator: In, values: [a]}]}]}}}\n", ""),
			[]string{nodeTerms + "[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
				nodeTerms + "[0].matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
				nodeTerms + "[0].matchExpressions[2].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
				nodeTerms + `[0].matchExpressions[3].operator: Invalid value: "Foo": not a valid selector operator`,
				nodeTerms + `[0].matchExpressions[4].values[0]: Invalid value: "-x": ` + labelValue,
				nodeTerms + `[0].matchFields[0].key: Invalid value: "spec.x": not a valid field selector key`}},
		{"preferred node affinity weight", pod("  affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 0, preference: {matchExpressions: [{key: k, operator: In, values: ['-x']}]}}]}}\n", ""),
			[]string{`spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100`}},
		{"pod affinity term", pod("  affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {'bad key': v}}, namespaces: [Bad], topologyKey: ''}]}}\n", ""),
			[]string{podTerm + `.labelSelector.matchLabels: Invalid value: "bad key": ` + qualifiedName,
				podTerm + `.namespace: Invalid value: "Bad": ` + label1123,
				podTerm + `.topologyKey: Required value: can not be empty`,
				podTerm + `.topologyKey: Invalid value: "": name part must be non-empty`,
				podTerm + `.topologyKey: Invalid value: "": ` + qualifiedName}},
		{"pod anti-affinity weighted term", pod("  affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 101, podAffinityTerm: {labelSelector: {matchExpressions: [{key: k, operator: In}]}, topologyKey: 'bad key'}}]}}\n", ""),
			[]string{"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
				`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Invalid value: "bad key": ` + qualifiedName,
				`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100`}},
		// validateTopologySpreadConstraints (dropped with a warning too).
		{"topology spread", pod("  topologySpreadConstraints: [{maxSkew: 0, topologyKey: '', whenUnsatisfiable: Sometimes, minDomains: 0, nodeAffinityPolicy: Foo}, {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, minDomains: 2, labelSelector: {matchLabels: {'bad key': v}}}, {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]\n", ""),
			[]string{`spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero`,
				`spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: must be greater than zero`,
				`spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not Sometimes`,
				`spec.topologySpreadConstraints[0].nodeAffinityPolicy: Unsupported value: "Foo": supported values: "Honor", "Ignore"`,
				`spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty`,
				`spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Sometimes": supported values: "DoNotSchedule", "ScheduleAnyway"`,
				`spec.topologySpreadConstraints[1].labelSelector.matchLabels: Invalid value: "bad key": ` + qualifiedName,
				`spec.topologySpreadConstraints[1].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway`,
				`spec.topologySpreadConstraints[1].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, ScheduleAnyway}"`}},
		{"affinity accepted", pod("  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/os, operator: In, values: [linux]}]}]}}, podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, podAffinityTerm: {labelSelector: {matchLabels: {app: x}}, topologyKey: kubernetes.io/hostname}}]}}\n", ""), nil},

		// validateShareProcessNamespace, ValidateHostSysctl.
		{"shareProcessNamespace with hostPID", pod("  shareProcessNamespace: true\n  hostPID: true\n", ""),
			[]string{`spec.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled`}},
		{"ipc sysctl with hostIPC", pod("  hostIPC: true\n  securityContext: {sysctls: [{name: kernel.shm_rmid_forced, value: '1'}]}\n", ""),
			[]string{`spec.securityContext.sysctls[0].name: Invalid value: "kernel.shm_rmid_forced": may not be specified when 'hostIPC' is true`}},

		// Fields podlife drops or ignores are still checked: ValidatePodSpec (subdomain,
		// serviceAccountName, nodeName, priorityClassName, nodeSelector, preemptionPolicy),
		// validateFSGroupChangePolicy, validateContainerCommon (terminationMessagePolicy),
		// validateResizePolicy.
		{"subdomain", pod("  subdomain: Bad_Sub\n", ""), []string{`spec.subdomain: Invalid value: "Bad_Sub": ` + label1123}},
		{"serviceAccountName", pod("  serviceAccountName: Bad_SA\n", ""), []string{`spec.serviceAccountName: Invalid value: "Bad_SA": ` + subdomain1123}},
		{"nodeName", pod("  nodeName: Bad_Node\n", ""), []string{`spec.nodeName: Invalid value: "Bad_Node": ` + subdomain1123}},
		{"priorityClassName", pod("  priorityClassName: Bad_PC\n", ""), []string{`spec.priorityClassName: Invalid value: "Bad_PC": ` + subdomain1123}},
		{"nodeSelector", pod("  nodeSelector: {'bad key': v}\n", ""), []string{`spec.nodeSelector: Invalid value: "bad key": ` + qualifiedName}},
		{"preemptionPolicy", pod("  preemptionPolicy: Sometimes\n", ""),
			[]string{`spec.preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"`}},
		{"fsGroupChangePolicy", pod("  securityContext: {fsGroupChangePolicy: Sometimes}\n", ""),
			[]string{`spec.securityContext.fsGroupChangePolicy: Unsupported value: "Sometimes": supported values: "Always", "OnRootMismatch"`}},
		{"terminationMessagePolicy", pod("", "    terminationMessagePolicy: Sometimes\n"),
			[]string{`spec.containers[0].terminationMessagePolicy: Unsupported value: "Sometimes": supported values: "File", "FallbackToLogsOnError"`}},
		{"resizePolicy", pod("  restartPolicy: Never\n", "    resizePolicy: [{resourceName: gpu, restartPolicy: RestartContainer}, {resourceName: gpu, restartPolicy: NotRequired}]\n"),
			[]string{`spec.containers[0].resizePolicy: Unsupported value: "gpu": supported values: "cpu", "memory"`,
				`spec.containers[0].resizePolicy: Invalid value: "RestartContainer": must be 'NotRequired' when pod ` + "`restartPolicy`" + ` is 'Never'`,
				`spec.containers[0].resizePolicy[1]: Duplicate value: "gpu"`,
				`spec.containers[0].resizePolicy: Unsupported value: "gpu": supported values: "cpu", "memory"`}},

		// podlife's own rules, stricter than the API server's for what the kubelet or the
		// runtime would fail later, or for what podlife does not implement (see deliberate).
		{"pod name with a dot", strings.Replace(pod("", ""), "name: p\n", "name: web.v1\n", 1),
			[]string{`metadata.name: Invalid value: "web.v1": ` + validation.IsDNS1123Label("web.v1")[0]}},
		{"image reference", strings.Replace(pod("", ""), "image: busybox:1.36", "image: Busy Box", 1),
			[]string{`spec.containers[0].image: Invalid value: "Busy Box": invalid reference format: repository name (library/Busy Box) must be lowercase`}},
		{"relative mountPath", pod("  volumes: [{name: v}]\n", "    volumeMounts: [{name: v, mountPath: data}]\n"),
			[]string{`spec.containers[0].volumeMounts[0].mountPath: Invalid value: "data": must be an absolute path`}},
		{"relative workingDir", pod("", "    workingDir: data\n"), []string{`spec.containers[0].workingDir: Invalid value: "data": must be an absolute path`}},
		{"relative hostPath", pod("  volumes: [{name: v, hostPath: {path: data}}]\n", ""),
			[]string{`spec.volumes[0].hostPath.path: Invalid value: "data": must be an absolute path`}},
		{"hostIP", pod("", "    ports: [{containerPort: 80, hostPort: 80, hostIP: nope}]\n"),
			[]string{`spec.containers[0].ports[0].hostIP: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{"emptyDir medium", pod("  volumes: [{name: v, emptyDir: {medium: HugePages}}]\n", ""),
			[]string{`spec.volumes[0].emptyDir.medium: Unsupported value: "HugePages": supported values: "", "Memory"`}},
		{"privileged without privilege escalation", pod("", "    securityContext: {privileged: true, allowPrivilegeEscalation: false}\n"),
			[]string{"spec.containers[0].securityContext: Invalid value: \"privileged\": cannot set `allowPrivilegeEscalation` to false and `privileged` to true"}},
		// Accepted, as by the API server: the container is refused when it is created, with the
		// kubelet's CreateContainerConfigError (podlife's TestRunAsNonRootRootUserPerContainer).
		{"runAsNonRoot with runAsUser 0 accepted", pod("", "    securityContext: {runAsNonRoot: true, runAsUser: 0}\n"), nil},
		{"unknown capability", pod("", "    securityContext: {capabilities: {add: [FLY]}}\n"),
			[]string{`spec.containers[0].securityContext.capabilities.add[0]: Unsupported value: "FLY": supported values: "ALL", "a Linux capability, with or without CAP_ (NET_ADMIN, CAP_SYS_TIME)"`}},
		{"supplementalGroupsPolicy", pod("  securityContext: {supplementalGroupsPolicy: Foo}\n", ""),
			[]string{`spec.securityContext.supplementalGroupsPolicy: Unsupported value: "Foo": the image's groups are always merged (supported: "Merge")`}},
		{"named port not found", pod("", "    livenessProbe: {httpGet: {port: http}}\n"),
			[]string{`spec.containers[0].livenessProbe.httpGet.port: Invalid value: "http": no port of the container has this name`}},

		// Job (pkg/apis/batch/validation: ValidateJobSpec): the template's restartPolicy,
		// defaulted to Always, must be OnFailure or Never.
		{"Job restartPolicy", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: busybox}]\n",
			[]string{`spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`}},
	}
	if f := os.Getenv("PODLIFE_APISERVER_CASES"); f != "" {
		writeCases(t, f, tests)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadString(kube.Options{}, tt.manifest)
			switch {
			case len(tt.want) == 0 && err != nil:
				t.Fatalf("refused: %v", err)
			case len(tt.want) == 0:
				return
			case err == nil:
				t.Fatal("accepted")
			}
			var got []string
			for _, i := range loadErrors(t, err) {
				got = append(got, i.Path+": "+i.Message)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(got, want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
			}
		})
	}
}

// deliberate names the rows of TestAPIServerValidation where podlife differs from the API
// server on purpose, with the reason; internal/apiserverdiff skips them.
var deliberate = map[string]string{
	"init restartPolicy":                      "container restart policies (ContainerRestartRules) are not implemented",
	"envFrom without source":                  "the API server drops the entry's index",
	"subPath absolute":                        "the API server drops the mount's index",
	"subPath backstep":                        "the API server drops the mount's index",
	"downwardAPI fieldPath":                   "the API server drops the item's index",
	"downwardAPI resource without container":  "the API server drops the item's index",
	"pod name with a dot":                     "a pod name is a DNS-1123 label in podlife: it is also the hostname and part of runtime IDs",
	"image reference":                         "refused up front (the kubelet fails the container with InvalidImageName)",
	"relative mountPath":                      "refused up front (the runtime would fail the container)",
	"relative workingDir":                     "refused up front (the runtime would fail the container)",
	"relative hostPath":                       "refused up front (the kubelet would resolve it against its own directory)",
	"hostIP":                                  "refused up front (the port mapping would fail)",
	"emptyDir medium":                         "only the default and Memory media are implemented",
	"named port not found":                    "refused up front (the kubelet fails the probe or hook at run time)",
	"privileged without privilege escalation": "the API server prints its internal SecurityContext as the value",
	"unknown capability":                      "refused up front (the runtime would fail the container)",
	"supplementalGroupsPolicy":                "only Merge is implemented; the field rule words the refusal",
}

// apiCase is a row of TestAPIServerValidation: a manifest breaking one rule, and the API
// server's errors for it.
type apiCase struct {
	name     string
	manifest string
	want     []string
}

// writeCases writes the rows of TestAPIServerValidation as JSON lines for
// internal/apiserverdiff, which runs the API server's own validation on them.
func writeCases(t *testing.T, file string, rows []apiCase) {
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, r := range rows {
		b, err := json.Marshal(map[string]any{"name": r.name, "manifest": r.manifest, "want": r.want, "deliberate": deliberate[r.name]})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
}

// linuxSignals are the stop signals the API server allows for Linux pods (KEP-4960).
var linuxSignals = strings.Fields(`SIGABRT SIGALRM SIGBUS SIGCHLD SIGCLD SIGCONT SIGFPE SIGHUP SIGILL SIGINT SIGIO
	SIGIOT SIGKILL SIGPIPE SIGPOLL SIGPROF SIGPWR SIGQUIT SIGSEGV SIGSTKFLT SIGSTOP SIGSYS SIGTERM SIGTRAP SIGTSTP
	SIGTTIN SIGTTOU SIGURG SIGUSR1 SIGUSR2 SIGVTALRM SIGWINCH SIGXCPU SIGXFSZ SIGRTMIN SIGRTMIN+1 SIGRTMIN+2
	SIGRTMIN+3 SIGRTMIN+4 SIGRTMIN+5 SIGRTMIN+6 SIGRTMIN+7 SIGRTMIN+8 SIGRTMIN+9 SIGRTMIN+10 SIGRTMIN+11
	SIGRTMIN+12 SIGRTMIN+13 SIGRTMIN+14 SIGRTMIN+15 SIGRTMAX-14 SIGRTMAX-13 SIGRTMAX-12 SIGRTMAX-11 SIGRTMAX-10
	SIGRTMAX-9 SIGRTMAX-8 SIGRTMAX-7 SIGRTMAX-6 SIGRTMAX-5 SIGRTMAX-4 SIGRTMAX-3 SIGRTMAX-2 SIGRTMAX-1 SIGRTMAX`)

// quotedSorted lists values as NotSupported does: sorted, quoted, comma-separated.
func quotedSorted(values []string) string {
	var q []string
	for _, v := range slices.Sorted(slices.Values(values)) {
		q = append(q, fmt.Sprintf("%q", v))
	}
	return strings.Join(q, ", ")
}

// TestStopSignals: every stop signal the API server allows for a Linux pod is converted to
// its number.
func TestStopSignals(t *testing.T) {
	for _, name := range linuxSignals {
		res, err := loadString(kube.Options{}, pod("  os: {name: linux}\n", "    lifecycle: {stopSignal: '"+name+"'}\n"))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if sig := onePod(t, res).Containers[0].StopSignal; sig <= 0 {
			t.Errorf("%s: signal %d", name, sig)
		}
	}
}

// TestNegativeGracePeriod: a negative terminationGracePeriodSeconds is accepted with the API
// server's warning, and taken as 1 s as the kubelet does.
func TestNegativeGracePeriod(t *testing.T) {
	res, err := loadString(kube.Options{}, pod("  terminationGracePeriodSeconds: -5\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Path+": "+res.Warnings[0].Message !=
		"spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1" {
		t.Errorf("warnings %v", res.Warnings)
	}
	check(t, "grace", *onePod(t, res).TerminationGracePeriod, time.Second)
}

// TestEnvFromInvalidKeys: keys that are not environment variable names under the kubelet's
// relaxed rule (only '=' is refused, for ConfigMaps given to Convert without validation) are
// skipped with a warning naming the envFrom entry; a name starting with a digit is taken.
func TestEnvFromInvalidKeys(t *testing.T) {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox",
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}}}}},
	}
	objects := kube.Objects{ConfigMaps: map[string]*corev1.ConfigMap{
		"cfg": {ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Data: map[string]string{"1ok": "a", "a=b": "b"}},
	}}
	spec, warnings, err := kube.Convert(p, objects, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkSlice(t, "warning paths", paths(warnings), []string{"spec.containers[0].envFrom[0]"})
	check(t, "env", fmt.Sprint(spec.Containers[0].Env), "[{1ok a}]")
}
