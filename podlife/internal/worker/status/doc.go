// Package status derives a pod's status from its containers' statuses, as the kubelet's status
// package and getPhase do: the phase (ComputePhase), the completion of a pod whose sidecars
// outlive its regular containers (Completion), readiness (Unready, Incomplete) and the pod's
// conditions with their transition times (Conditions); and one container's status fields with
// their transitions ([Container]: waiting, running, started, ready, exited).
//
// It owns no state: every function is pure, over snapshots and values (the transition times
// are an input and an output of Conditions), and a Container is a value whose methods do no
// I/O. The pod's worker (podlife/internal/worker) calls it on its loop and keeps what it
// returns, its containers' Container values included. It must not import the worker, nor anything that
// does I/O (containerd, the state directory, CNI): only the vocabulary of
// podlife/internal/api (TestPackageArrows checks it).
package status
