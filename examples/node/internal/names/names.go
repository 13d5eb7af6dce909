package names

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"strconv"
	"strings"
)

// Labels podlife puts on the containerd objects of a pod it runs for the cluster, so that the
// Kubernetes pod behind a podlife pod can be told from its name alone. LabelName is left out
// for a name longer than a label value may be (63 characters; a pod name may have 253): the
// UID and the saved v1.Pod still tell the pod.
const (
	LabelNamespace = "podlife.io/k8s-namespace"
	LabelName      = "podlife.io/k8s-name"
	LabelUID       = "podlife.io/k8s-uid"
)

// HashLen is the length of the hash in a podlife name: 16 base32 characters, 80 bits of
// SHA-256, so that finding a namespace/name whose name is another pod's takes about 2^80
// hashes (and two of one's own that share a name, 2^40: the node refuses the second, see the
// provider's claim).
const HashLen = 16

// lowerBase32 encodes with the characters of a DNS label (a-z, 2-7).
var lowerBase32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// Podlife returns the podlife pod name of the Kubernetes pod namespace/name: a DNS-1123
// label (podlife's rule), where Kubernetes allows a 253-byte subdomain per namespace, so that
// any such mapping is a hash. It is the readable "namespace-name", cut to fit, then "-" and
// HashLen characters of the SHA-256 of the pair, length-prefixed so that no two pairs hash
// the same bytes ("a-b"/"c" and "a"/"b-c" share the readable part, not the hash). Its 9th
// character from the end is a hash character, never the "-" every Legacy has there: the
// two never coincide.
func Podlife(namespace, name string) string {
	sum := sha256.Sum256([]byte(strconv.Itoa(len(namespace)) + ":" + namespace + strconv.Itoa(len(name)) + ":" + name))
	return readable(namespace, name, 63-1-HashLen) + "-" + lowerBase32.EncodeToString(sum[:])[:HashLen]
}

// Legacy is the podlife name the node gave pods before Podlife (a 32-bit hash, which a
// pod of another namespace could be made to share): pods it started keep it (see the
// provider's podName).
func Legacy(namespace, name string) string {
	sum := sha256.Sum256([]byte(namespace + "/" + name))
	return readable(namespace, name, 63-1-8) + "-" + hex.EncodeToString(sum[:])[:8]
}

// readable is "namespace-name" with every character a DNS label cannot hold as "-", cut to max.
func readable(namespace, name string, max int) string {
	base := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, namespace+"-"+name)
	if len(base) > max {
		base = base[:max]
	}
	return strings.Trim(base, "-")
}
