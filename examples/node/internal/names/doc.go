// Package names maps a Kubernetes pod (namespace/name) to the name of the podlife pod that runs
// it (Podlife, a DNS-1123 label with a hash; Legacy, the mapping of older nodes) and names the
// labels podlife puts on its containerd objects.
//
// It is plain functions and constants: it must not import package main (the provider) nor
// podlife.
package names
