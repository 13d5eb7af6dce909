// Package expand expands $(VAR) references as the kubelet does ([Expand]), within the
// bounds podlife/kube puts on a manifest ([MaxString] per string, [MaxEnvironment] for a
// container's environment, command and args, [MaxTotal] for a load, its [Budget]): an
// [Expander] stops a string as soon as it would exceed one and reports it at the field's
// path, before the memory is spent.
//
// It owns the expansion and its bounds, not the variables: their values are given by a
// lookup function (package env resolves a container's). It imports
// podlife/kube/internal/report only: no podlife package, and no other package of
// podlife/kube (TestPackageArrows checks it).
package expand
