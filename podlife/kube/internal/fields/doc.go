// Package fields is podlife/kube's table of every field of the Kubernetes objects it reads
// (a Pod, and Deployments, StatefulSets, DaemonSets, ReplicaSets and Jobs), saying what
// becomes of each ([Rule]: supported, ignored, warned about or rejected), and the walker that
// checks every field set in a document against it ([Check]), so that no field set is silently
// dropped: a field the table does not know is an error. docs/kube-fields.md is generated from
// the table (TestFieldsDoc in podlife/kube).
//
// It owns which fields are honoured, not their conversion. It imports
// podlife/kube/internal/report only: no podlife package, and no other package of
// podlife/kube (TestPackageArrows checks it).
package fields
