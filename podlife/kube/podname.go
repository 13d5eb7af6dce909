package kube

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxHostname is the longest hostname the kernel takes (64 bytes with the terminating NUL).
const maxHostname = 63

// podHostname is the hostname the kubelet gives a pod whose name or hostnameOverride is
// hostname (truncatePodHostnameIfNeeded): cut to 63 characters, then without trailing '-' and
// '.', so that it stays a valid name.
func podHostname(hostname string) string {
	if len(hostname) <= maxHostname {
		return hostname
	}
	return strings.TrimRight(hostname[:maxHostname], "-.")
}

// podName sets the podlife name of the pod: Options.PodName's for its Kubernetes name, which
// is then checked as the API server checks a pod's name (a DNS-1123 subdomain); without
// PodName, the Kubernetes name, and one longer than a label is refused with the reason.
func (c *converter) podName(opts Options) {
	name, np := c.src.name, c.src.namePath
	if name == "" {
		return
	}
	if opts.PodName == nil {
		if len(name) > maxHostname && len(validation.IsDNS1123Subdomain(name)) == 0 {
			c.is.Field(field.Invalid(np, name, "must be no more than 63 characters: podlife names the pod's directories and containers after it "+
				"(Kubernetes allows 253; kube.Options.PodName maps such names, as podlife-node does)"))
		}
		return
	}
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		c.is.Field(field.Invalid(np, name, msg))
	}
	c.out.Name = opts.PodName(c.out.Namespace, name)
}

// maxHostnameOverride is the API server's limit on spec.hostnameOverride.
const maxHostnameOverride = 64

// hostname checks spec.hostname (a DNS-1123 label) and spec.hostnameOverride (a DNS-1123
// subdomain of at most 64 characters) as the API server does: podlife's own Hostname takes a
// subdomain, which only the override may give.
func (c *converter) hostname(sp *field.Path) {
	s := c.src.spec
	if s.Hostname != "" {
		for _, msg := range validation.IsDNS1123Label(s.Hostname) {
			c.is.Field(field.Invalid(sp.Child("hostname"), s.Hostname, msg))
		}
	}
	if o := s.HostnameOverride; o != nil {
		if len(*o) > maxHostnameOverride {
			c.is.Field(field.TooLong(sp.Child("hostnameOverride"), "", maxHostnameOverride))
		}
		for _, msg := range validation.IsDNS1123Subdomain(*o) {
			c.is.Field(field.Invalid(sp.Child("hostnameOverride"), *o, msg))
		}
	}
}
