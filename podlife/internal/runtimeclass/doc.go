// Package runtimeclass owns the runtime classes (Kubernetes' RuntimeClass): the Class type
// that package podlife re-exports as RuntimeClass, their defaults and validation, resolving a
// pod's runtimeClassName to the containerd runtime and runc options its containers run with
// (the built-in crun class included, with crun's spec version cached per binary), and the
// spec options a class adds.
//
// It gets the Config's classes and default runtime as values. It must not import package
// podlife, the pod worker, podlife/daemon or cni; of containerd it knows only the runtime
// options' types (through package ctrd and tasks.Class).
package runtimeclass
