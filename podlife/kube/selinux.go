package kube

import (
	"os"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// seLinuxEnforce is the file the SELinux filesystem has when the kernel runs SELinux (enforcing
// or permissive), the mount the runtimes' SELinux helpers look for first.
const seLinuxEnforce = "/sys/fs/selinux/enforce"

// hostSELinux tells whether this host runs SELinux: its filesystem is mounted.
func hostSELinux() bool {
	_, err := os.Stat(seLinuxEnforce)
	return err == nil
}

// seLinux checks the seLinuxOptions of the pod and of its containers against the host. On a
// host without SELinux they are accepted and nothing is applied, as the kubelet and the CRI do
// (the runtime's labels are empty there). podlife never labels processes or volumes, so on a
// host that runs SELinux the pod would not get the labels it asks for: it is refused there,
// naming the field.
func (c *converter) seLinux() {
	s, sp := c.src.spec, c.specPath
	var set []*field.Path
	if s.SecurityContext != nil && s.SecurityContext.SELinuxOptions != nil {
		set = append(set, sp.Child("securityContext", "seLinuxOptions"))
	}
	for name, cs := range map[string][]corev1.Container{"initContainers": s.InitContainers, "containers": s.Containers} {
		for i := range cs {
			if sc := cs[i].SecurityContext; sc != nil && sc.SELinuxOptions != nil {
				set = append(set, sp.Child(name).Index(i).Child("securityContext", "seLinuxOptions"))
			}
		}
	}
	if len(set) == 0 || !c.shared.seLinuxEnabled() {
		return
	}
	for _, p := range set {
		c.is.Field(field.Forbidden(p, "this host runs SELinux and podlife does not apply SELinux labels (to processes or volumes): the pod would not run with this label"))
	}
}
