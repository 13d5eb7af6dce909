// Package serviceenv gives pods the kubelet's Service environment variables
// (FOO_SERVICE_HOST..., kube.ServiceEnv) from a cache of the cluster's Services, fixed for each
// pod when it is first converted and kept across the node's restarts in an annotation of the
// saved v1.Pod (Annotation).
//
// It owns the per-pod variables and that annotation's encoding. It is given a Service lister
// and a function loading a saved v1.Pod, and must not import package main (the provider).
package serviceenv
