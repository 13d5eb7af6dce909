// Package conditions holds the pod conditions podlife reports and the statuses a condition
// takes: the Type and Status of a [podlife.PodCondition], spelled as Kubernetes spells them, so
// that a program can read a pod's condition or set a readiness gate's:
//
//	if pod.Status().Condition(conditions.PodReady).Status == conditions.True {
//		// ready
//	}
//	err := pod.SetCondition(ctx, "example.com/feature-ready", conditions.True, "Loaded", "")
//
// A readiness gate's type is any qualified name (PodSpec.ReadinessGates); the types here are
// the ones the kubelet, and podlife, set themselves.
//
// The package declares constants and their types only, as package podlife/reasons does for
// reasons. It imports podlife's internal vocabulary, never package podlife.
package conditions
