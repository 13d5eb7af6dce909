// Package env resolves the environment of a pod's containers for podlife/kube as the
// kubelet does ([Resolver.Env]): envFrom, env values with their $(VAR) references expanded,
// valueFrom of ConfigMaps, Secrets, the downward API ([Resolver.FieldRef]) and container
// resources ([Resolver.ResourceFieldRef], against the node allocatable, this host's by
// default), and the Services' variables ([ServiceVars]); a volume mount's subPathExpr is
// expanded with the environment ([Resolver.SubPathExpr]). downwardAPI volumes use the same
// FieldRef and ResourceFieldRef.
//
// It owns the resolution of variables and downward API fields, not the rest of the
// container: it is given the pod ([Pod]) and reports to an issue list. It imports package
// podlife (for its EnvVar and PodField types), podlife/kube/internal/expand and
// podlife/kube/internal/report, and no other package of podlife/kube; package expand must
// not import it (TestPackageArrows checks it).
package env
