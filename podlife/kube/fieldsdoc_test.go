package kube

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/podlife/podlife/podlife/kube/internal/fields"
	"github.com/podlife/podlife/podlife/kube/internal/report"
)

var update = flag.Bool("update", false, "rewrite docs/kube-fields.md")

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

	var pod, ctr []fields.Rule
	for _, r := range fields.PodRules() {
		if rest, ok := strings.CutPrefix(r.Path, "<container>."); ok {
			r.Path = rest
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
	for _, k := range fields.WorkloadKinds() {
		fmt.Fprintf(&b, "\n### %s\n\n", k)
		var rules []fields.Rule
		for _, r := range fields.WorkloadRules(k) {
			if strings.HasPrefix(r.Path, "spec.") {
				rules = append(rules, r)
			}
		}
		writeRules(&b, rules)
	}
	b.WriteString("\nThe metadata of a workload is read as a Pod's (`metadata.name` and `metadata.namespace` become the pod's); its labels are ignored: the pod has its template's.\n")
	return b.String()
}

func writeRules(b *strings.Builder, rules []fields.Rule) {
	b.WriteString("| field | support | notes |\n|---|---|---|\n")
	for i := 0; i < len(rules); {
		// Consecutive rules alike for sibling fields share a row: parent.{a, b}.
		r, parent, names := rules[i], parentOf(rules[i].Path), []string{leafOf(rules[i].Path)}
		j := i + 1
		for ; j < len(rules); j++ {
			n := rules[j]
			if parentOf(n.Path) != parent || n.Support != r.Support || n.Note != r.Note || jsonList(n.Accept) != jsonList(r.Accept) {
				break
			}
			names = append(names, leafOf(n.Path))
		}
		path := r.Path
		if len(names) > 1 {
			path = "{" + strings.Join(names, ", ") + "}"
			if parent != "" {
				path = parent + "." + path
			}
		}
		s := r.Support.String()
		if len(r.Accept) > 0 {
			s += " unless " + strings.ReplaceAll(jsonList(r.Accept), ", ", " or ")
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", path, s, strings.ReplaceAll(r.Note, "|", `\|`))
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

func jsonList(vs []any) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = report.JSONString(v)
	}
	return strings.Join(s, ", ")
}
