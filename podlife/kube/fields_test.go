package kube

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var update = flag.Bool("update", false, "rewrite docs/kube-fields.md")

// fieldPaths lists the JSON path patterns of every field of t ([*] for list elements), and
// which of them are leaves (scalars, maps, quantities...).
func fieldPaths(t reflect.Type) (all []string, leaf map[string]bool) {
	leaf = map[string]bool{}
	var walk func(t reflect.Type, path string, stack map[reflect.Type]bool)
	walk = func(t reflect.Type, path string, stack map[reflect.Type]bool) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if path != "" {
			all = append(all, path)
		}
		switch t {
		case reflect.TypeFor[resource.Quantity](), reflect.TypeFor[metav1.Time](), reflect.TypeFor[metav1.MicroTime](),
			reflect.TypeFor[intstr.IntOrString](), reflect.TypeFor[runtime.RawExtension](), reflect.TypeFor[metav1.FieldsV1]():
			leaf[path] = true
			return
		}
		switch t.Kind() {
		case reflect.Slice:
			if t.Elem().Kind() == reflect.Uint8 {
				leaf[path] = true
				return
			}
			walk(t.Elem(), path+"[*]", stack)
		case reflect.Struct:
			if stack[t] {
				leaf[path] = true
				return
			}
			stack[t] = true
			defer delete(stack, t)
			for i := range t.NumField() {
				f := t.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				switch {
				case name == "-":
				case f.Anonymous && name == "":
					walk(f.Type, path, stack)
				default:
					p := name
					if path != "" {
						p = path + "." + name
					}
					walk(f.Type, p, stack)
				}
			}
		default:
			leaf[path] = true
		}
	}
	walk(t, "", map[reflect.Type]bool{})
	return all, leaf
}

// lookupRule returns the rule for a path pattern: its own, or its closest ancestor's.
func (rs *ruleSet) lookupRule(path string) (rule, bool) {
	for p := path; p != ""; {
		if r, ok := rs.byPath[p]; ok {
			return r, true
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return rule{}, false
}

// TestRulesCoverEveryField: every field of the k8s.io/api types the loader reads has a rule,
// so nothing reaches the "not supported" default by omission.
func TestRulesCoverEveryField(t *testing.T) {
	check := func(name string, rs *ruleSet, typ reflect.Type, skip string) {
		all, leaf := fieldPaths(typ)
		for _, p := range all {
			if !leaf[p] || (skip != "" && strings.HasPrefix(p, skip)) {
				continue
			}
			if _, ok := rs.lookupRule(p); !ok {
				t.Errorf("%s: no rule for %s", name, p)
			}
		}
	}
	check("Pod", podRuleSet(), reflect.TypeFor[corev1.Pod](), "")
	check("template", podRuleSet(), reflect.TypeFor[corev1.PodTemplateSpec](), "")
	for kind, typ := range map[string]reflect.Type{
		kindDeployment: reflect.TypeFor[appsv1.Deployment](), kindStatefulSet: reflect.TypeFor[appsv1.StatefulSet](),
		kindDaemonSet: reflect.TypeFor[appsv1.DaemonSet](), kindReplicaSet: reflect.TypeFor[appsv1.ReplicaSet](),
		kindJob: reflect.TypeFor[batchv1.Job](),
	} {
		check(kind, workloadRuleSet()[kind], typ, "spec.template.")
	}
}

// TestRulesNameRealFields: every rule path is a field of the types, so a typo cannot hide a
// field behind a rule that never matches.
func TestRulesNameRealFields(t *testing.T) {
	check := func(name string, rules []rule, typ reflect.Type) {
		all, _ := fieldPaths(typ)
		known := map[string]bool{}
		for _, p := range all {
			known[p] = true
		}
		for _, r := range rules {
			for _, p := range expandPattern(r.path) {
				if !known[p] {
					t.Errorf("%s: rule %q: no field %s", name, r.path, p)
				}
			}
		}
	}
	check("Pod", podRules(), reflect.TypeFor[corev1.Pod]())
	for kind, typ := range map[string]reflect.Type{
		kindDeployment: reflect.TypeFor[appsv1.Deployment](), kindStatefulSet: reflect.TypeFor[appsv1.StatefulSet](),
		kindDaemonSet: reflect.TypeFor[appsv1.DaemonSet](), kindReplicaSet: reflect.TypeFor[appsv1.ReplicaSet](),
		kindJob: reflect.TypeFor[batchv1.Job](),
	} {
		check(kind, workloadRules(kind), typ)
	}
}

// TestFieldsDoc: docs/kube-fields.md holds the table generated from the rules. Run with
// -update to rewrite it.
func TestFieldsDoc(t *testing.T) {
	const path = "../../docs/kube-fields.md"
	want := fieldsDoc()
	got, err := os.ReadFile(path)
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date: run go test ./podlife/kube -run TestFieldsDoc -update", path)
	}
}

// fieldsDoc renders docs/kube-fields.md from the rules.
func fieldsDoc() string {
	var b strings.Builder
	b.WriteString(docIntro)
	b.WriteString("\n## Documents\n\n| kind | apiVersion | what happens |\n|---|---|---|\n")
	infos := kindInfos()
	for _, k := range []string{kindPod, kindDeployment, kindStatefulSet, kindDaemonSet, kindReplicaSet, kindJob,
		kindConfigMap, kindSecret, kindService, kindServiceAccount, kindNamespace} {
		fmt.Fprintf(&b, "| %s | `%s` | %s |\n", k, infos[k].apiVersion, kindDocs[k])
	}
	b.WriteString("| any other | | error at `kind` |\n")
	b.WriteString(limitsDoc())

	var pod, ctr []rule
	for _, r := range podRules() {
		if rest, ok := strings.CutPrefix(r.path, "<container>."); ok {
			r.path = rest
			ctr = append(ctr, r)
		} else {
			pod = append(pod, r)
		}
	}
	b.WriteString("\n## Pod fields\n\nPaths are from a Pod's root; in a workload they are under `spec.template`.\n\n")
	writeRules(&b, pod)
	b.WriteString("\n## Container fields\n\nPaths are relative to `spec.containers[*]` and `spec.initContainers[*]`. " +
		"`<probe>` is `livenessProbe`, `readinessProbe` or `startupProbe`; `<hook>` is `lifecycle.postStart` or `lifecycle.preStop`.\n\n")
	writeRules(&b, ctr)
	b.WriteString("\n## Workload fields\n\nThe fields of the workload objects themselves, besides `spec.template` (converted as a Pod, above).\n")
	for _, k := range workloadKinds {
		fmt.Fprintf(&b, "\n### %s\n\n", k)
		var rules []rule
		for _, r := range workloadRules(k) {
			if strings.HasPrefix(r.path, "spec.") {
				rules = append(rules, r)
			}
		}
		writeRules(&b, rules)
	}
	b.WriteString("\nThe metadata of a workload is read as a Pod's (`metadata.name` and `metadata.namespace` become the pod's); its labels are ignored: the pod has its template's.\n")
	return b.String()
}

func writeRules(b *strings.Builder, rules []rule) {
	b.WriteString("| field | support | notes |\n|---|---|---|\n")
	for i := 0; i < len(rules); {
		// Consecutive rules alike for sibling fields share a row: parent.{a, b}.
		r, parent, names := rules[i], parentOf(rules[i].path), []string{leafOf(rules[i].path)}
		j := i + 1
		for ; j < len(rules); j++ {
			n := rules[j]
			if parentOf(n.path) != parent || n.support != r.support || n.note != r.note || jsonList(n.accept) != jsonList(r.accept) {
				break
			}
			names = append(names, leafOf(n.path))
		}
		path := r.path
		if len(names) > 1 {
			path = "{" + strings.Join(names, ", ") + "}"
			if parent != "" {
				path = parent + "." + path
			}
		}
		s := r.support.String()
		if len(r.accept) > 0 {
			s += " unless " + strings.ReplaceAll(jsonList(r.accept), ", ", " or ")
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", path, s, strings.ReplaceAll(r.note, "|", `\|`))
		i = j
	}
}

func parentOf(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return ""
}

func leafOf(path string) string { return path[strings.LastIndexByte(path, '.')+1:] }

// limitsDoc renders the limits section, with the values of the constants.
func limitsDoc() string {
	return fmt.Sprintf(`
## Limits

A manifest is input from whoever wrote it, and podlife runs as root: these limits bound what a
manifest can make a load cost, and refuse early what could not run. Each is an error naming the
manifest (`+"`<document>`"+`) or the field; the first value over a limit ends its container's expansion.

| limit | value | why |
|---|---|---|
| manifest size (`+"`MaxManifestSize`"+`) | %[1]d bytes (3 MiB) | the API server refuses request bodies over 3 MiB; Load reads at most one byte more, so an endless reader or `+"`/dev/zero`"+` costs nothing |
| documents in a manifest (`+"`MaxDocuments`"+`) | %[5]d | far more than a set of pods with their ConfigMaps and Secrets; without it 3 MiB of tiny documents is hundreds of thousands of decodes and errors (half a minute, gigabytes allocated). Empty documents count |
| a manifest's YAML, aliases expanded | %[1]d bytes | an alias of a long string is one node for go-yaml, whose own bound ("excessive aliasing") counts nodes: a 1 MiB manifest with 1000 aliases of a 1 MiB string would convert to 1 GiB of JSON. Documents holding a `+"`*`"+` are measured with their aliases expanded (strings by their length, list items and keys one byte at least) before they are converted, and may together take what a manifest written out in full could |
| a string once $(VAR) is expanded (`+"`MaxExpandedString`"+`) | %[2]d bytes (128 KiB) | Linux's MAX_ARG_STRLEN: execve refuses a longer argument or environment string, so the container could not start. Applies to `+"`env[*].value`"+`, `+"`command`"+`, `+"`args`"+`, an exec probe's command and `+"`subPathExpr`"+`, and to env values from ConfigMaps and Secrets |
| a container's env, command and args together (`+"`MaxContainerEnvironment`"+`) | %[3]d bytes (2 MiB) | Linux's ARG_MAX at the default 8 MiB stack limit (a quarter of it): execve refuses more. Each variable counts as NAME=value and a NUL, each argument with its NUL; the image's own env is not counted |
| all $(VAR) expansion in one Load or Convert (`+"`MaxExpansionTotal`"+`) | %[4]d bytes (16 MiB) | the kubelet expands each env value with the expanded values before it, so `+"`A1=$(A0)$(A0)`"+`, `+"`A2=$(A1)$(A1)`"+`, ... doubles at each entry: 60 entries would be 2^60 times A0. The limits above stop each container as it expands, before the memory is spent; this one stops many containers from adding up |

The expansion keeps the kubelet's semantics otherwise (a value sees the expanded values of the
variables before it; unknown references stay as written; `+"`$$`"+` escapes).
`, MaxManifestSize, MaxExpandedString, MaxContainerEnvironment, MaxExpansionTotal, MaxDocuments)
}

// kindDocs says what Load does with each kind.
var kindDocs = map[string]string{
	kindPod:            "converted",
	kindDeployment:     "its pod template is converted and run as one pod named after the Deployment",
	kindStatefulSet:    "its pod template is run as one pod named after the StatefulSet",
	kindDaemonSet:      "its pod template is run as one pod named after the DaemonSet",
	kindReplicaSet:     "its pod template is run as one pod named after the ReplicaSet",
	kindJob:            "its pod template is run as one pod named after the Job, keeping its restartPolicy (OnFailure or Never)",
	kindConfigMap:      "feeds configMap volumes and projections, env `configMapKeyRef` and `envFrom` of pods in its namespace (from any manifest given)",
	kindSecret:         "feeds secret volumes and projections, env `secretKeyRef`, `envFrom` and `imagePullSecrets` of pods in its namespace",
	kindService:        "warning: skipped (there is no cluster network)",
	kindServiceAccount: "warning: skipped",
	kindNamespace:      "warning: skipped (`metadata.namespace` is honoured as a name)",
}

const docIntro = `# Kubernetes fields in podlife/kube

<!-- Generated by go test ./podlife/kube -run TestFieldsDoc -update; do not edit. -->

` + "`podlife/kube`" + ` loads Kubernetes manifests (` + "`kube.Load`, `kube.LoadFiles`, `kube.Convert`" + `) into
podlife pod specs. Every field set in a manifest is checked against the table below, so none is
silently dropped:

- **supported**: converted (the note says to what, and which values are rejected);
- **ignored**: accepted without effect, because it is informational, set by the API server, or only
  steers a controller that has nothing to do when one pod is run once;
- **warning**: dropped with a warning, because running without it is safe (scheduling, unenforced
  limits); ` + "`Options.Strict`" + ` makes warnings errors;
- **error**: the manifest is rejected, with the field's path
  (` + "`spec.containers[0].volumeMounts[1].mountPropagation`" + `).

"unless" lists values that raise nothing because podlife behaves that way anyway. A field of a
newer k8s.io/api than the one podlife is built with is an error. Unknown fields (typos) and
duplicate fields are errors, as with ` + "`kubectl --validate=strict`" + `.

The API server's defaults apply. Those podlife shares are left unset in the converted spec and
applied by podlife when it runs it (` + "`podlife.PodSpec.WithDefaults`" + `, see [spec-defaults.md](spec-defaults.md)):
` + "`restartPolicy: Always`" + `, ` + "`terminationGracePeriodSeconds: 30`" + `, ` + "`imagePullPolicy`" + ` by tag, probe period
10 s, timeout 1 s, thresholds 1 and 3, port protocol TCP. The converter makes the others explicit:
CPU request = CPU limit when only the limit is given, hostPort = containerPort with hostNetwork,
file mode 0644, and an emptyDir for a volume without a source.
`
