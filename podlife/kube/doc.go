// Package kube loads Kubernetes manifests into podlife pod specs: Pods, and the pod templates
// of Deployments, StatefulSets, DaemonSets, ReplicaSets and Jobs (each run as one pod), with
// the ConfigMaps and Secrets they use, as Podman's kube play does. Every field set in a
// manifest that podlife cannot honour is reported by its path; none is silently dropped.
//
// # Loading
//
// [Load] and [LoadFiles] read YAML or JSON manifests, one or many documents each, decode them
// with k8s.io/api types as the API server does with strict field validation (unknown and
// duplicate fields are errors), and convert each pod with [Convert], which callers that build
// a corev1.Pod themselves can use directly.
//
// # Defaults and conversion
//
// The API server's defaults that podlife shares are left to podlife, which applies them when
// it admits the spec (podlife.PodSpec.WithDefaults; a field unset in the manifest stays unset
// in the converted spec): restartPolicy Always, terminationGracePeriodSeconds 30,
// imagePullPolicy Always for a ":latest" or untagged image and IfNotPresent otherwise, port
// protocol TCP, probe period 10 s, timeout 1 s, success threshold 1 and failure threshold 3.
// The others are made explicit in the spec: httpGet path "/" and scheme HTTP, a CPU request
// equal to the CPU limit when only the limit is set, the host port equal to the container
// port with hostNetwork, file mode 0644 for configMap, secret, downwardAPI and projected
// files, and an emptyDir for a volume without a source.
//
// The container environment is resolved as the kubelet does: envFrom sources, then env
// entries in order; a literal value has its $(VAR) references expanded with the variables
// defined before it ("$$" escapes, unknown references stay as written); valueFrom reads
// ConfigMaps and Secrets given with the pod, the pod's name, namespace, labels and
// annotations, or a container's resources (resourceFieldRef: the limit or request divided by
// the divisor and rounded up; a missing request is the limit, a missing limit the pod-level
// limit or else the node allocatable, which is this host's unless [Options].Allocatable says
// otherwise). command and args are expanded with the whole environment, an exec probe's
// command with the literal env values only, and subPathExpr with the environment (a missing
// variable is an error). Named ports of probes and httpGet hooks are resolved against the
// container's ports. configMap, secret, downwardAPI (fieldRef and resourceFieldRef) and
// projected volumes become podlife.FilesVolume (secrets and projections on a tmpfs).
// readinessGates become podlife.PodSpec.ReadinessGates and pod-level resources
// podlife.PodSpec.Resources.
//
// A workload's pod takes the workload's name and namespace and its template's labels; a
// Job's pod keeps its template's restartPolicy (OnFailure or Never) and its
// activeDeadlineSeconds. Annotations are informational and ignored, as is everything the API
// server sets (uid, resourceVersion, managedFields, status...).
//
// # Limits
//
// A manifest is input from whoever wrote it; these bound what a load may cost, each an error
// at the field: a manifest of at most [MaxManifestSize] bytes (3 MiB, the API server's limit
// on a request), also with its YAML aliases expanded, and [MaxDocuments] documents; and $(VAR) expansion bounded while it
// runs, to [MaxExpandedString] per string (Linux's MAX_ARG_STRLEN), [MaxContainerEnvironment]
// for a container's env, command and args (ARG_MAX) and [MaxExpansionTotal] for a load.
//
// # Issues
//
// A field podlife cannot honour is an [Issue] with its path from the document's root, such as
// spec.affinity or spec.containers[0].volumeMounts[1].mountPropagation. It is a [Warning]
// where running without it is safe (scheduling fields, an unenforced storage limit, a TTY),
// and an [Error] otherwise; [Options].Strict makes every warning an error. Errors are
// returned together in a [*LoadError], which matches podlife.ErrInvalidSpec with errors.Is.
// The converted specs pass podlife's own validation, whose errors are reported at the
// manifest's paths too. docs/kube-fields.md lists every field and what becomes of it.
//
// # Packages
//
// Package kube owns loading (the kinds read, a workload's pod), the conversion of a pod and
// its containers (volumes, probes, hooks, resources, security), the mapping of podlife's
// validation errors to manifest paths, and the public issues and limits. Its parts that stand
// alone are internal packages, each owning one thing, the arrows pointing from kube to them:
//
//   - report: the issues of one document, which kube turns into Issues;
//   - fields: the table of every field and what becomes of it, and the walker that checks
//     every field set in a document against it;
//   - decode: a manifest cut into documents, YAML aliases measured, strict decoding;
//   - apicheck: the API server's checks of the fields podlife drops;
//   - expand: $(VAR) expansion within the limits;
//   - env: a container's environment and the downward API (imports expand).
//
// Each imports report only (env also expand), never kube nor another of them. Package kube
// imports package podlife, hook, probe and podlife/internal/apirules; package podlife must
// never import it: kube builds podlife's specs, never the reverse.
package kube
