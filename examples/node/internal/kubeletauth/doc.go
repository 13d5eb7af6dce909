// Package kubeletauth secures the node's kubelet API as a kubelet does: New gives its
// authentication (client certificates of a CA, bearer tokens reviewed by the API server) and
// authorization (SubjectAccessReview on nodes/NAME's subresources), and NewCertificate makes
// the key pairs of its serving certificate (and the e2e tests' CAs and client certificates).
//
// It is given plain values (a client, the node's name, a CA file) and must not import
// package main (the provider) nor podlife: it knows nothing of pods.
package kubeletauth
