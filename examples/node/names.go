package main

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Labels podlife puts on the containerd objects of a pod it runs for the cluster, so that the
// Kubernetes pod behind a podlife pod can be told from its name alone.
const (
	labelNamespace = "podlife.io/k8s-namespace"
	labelName      = "podlife.io/k8s-name"
	labelUID       = "podlife.io/k8s-uid"
)

// podlifeName returns the podlife pod name of the Kubernetes pod namespace/name: a DNS-1123
// label (podlife's rule), where Kubernetes allows a 253-byte subdomain per namespace. It is the
// readable "namespace-name", cut to fit, and a hash of the pair, so that two pods never share
// one ("a-b"/"c" and "a"/"b-c" differ by their hash).
func podlifeName(namespace, name string) string {
	sum := sha256.Sum256([]byte(namespace + "/" + name))
	hash := hex.EncodeToString(sum[:])[:8]
	base := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, namespace+"-"+name)
	const max = 63 - 1 - 8
	if len(base) > max {
		base = base[:max]
	}
	return strings.Trim(base, "-") + "-" + hash
}

// hostname returns the hostname a pod's containers see: its name, cut to a DNS label as the
// kubelet does.
func hostname(name string) string {
	if len(name) > 63 {
		name = name[:63]
	}
	return strings.TrimRight(name, "-.")
}
