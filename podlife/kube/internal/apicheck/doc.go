// Package apicheck checks the fields of a pod spec that podlife/kube drops or ignores
// (scheduling: affinity, tolerations, topology spread; service account, priority and node
// names; fields of containers podlife does not use) as the API server validates them, with
// its wording and paths, so that a manifest the API server would refuse is refused too
// rather than run ([Dropped]).
//
// It owns those checks only; the fields podlife converts are checked where they are
// converted. It imports podlife/kube/internal/report only: no podlife package, and no
// other package of podlife/kube (TestPackageArrows checks it).
package apicheck
