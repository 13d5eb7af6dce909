package kube

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// seLinuxPod is a pod with seLinuxOptions at the pod and in its init and app containers, as
// the upstream EmptyDir and FSGroup specs set them.
func seLinuxPod() *corev1.Pod {
	opts := &corev1.SELinuxOptions{Level: "s0:c0,c1"}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "selinux"},
		Spec: corev1.PodSpec{
			SecurityContext: &corev1.PodSecurityContext{SELinuxOptions: opts},
			InitContainers:  []corev1.Container{{Name: "init", Image: "busybox", SecurityContext: &corev1.SecurityContext{SELinuxOptions: opts}}},
			Containers:      []corev1.Container{{Name: "app", Image: "busybox", SecurityContext: &corev1.SecurityContext{SELinuxOptions: opts}}},
		},
	}
}

// convertOn converts pod as Convert does, on a host that runs SELinux or not.
func convertOn(pod *corev1.Pod, selinux bool) []Issue {
	is := newIssues(Document{Index: -1, Kind: kindPod, Name: pod.Name})
	sh := newShared()
	sh.seLinuxEnabled = func() bool { return selinux }
	convertPod(podFromPod(pod), Objects{}, Options{Strict: true}, sh, is)
	list := is.all()
	sortIssues(list)
	return list
}

// seLinuxOptions are accepted with nothing applied on a host without SELinux, as the kubelet;
// on a host that runs SELinux each one is refused at its field, since podlife does not label.
func TestSELinuxOptionsByHost(t *testing.T) {
	if got := convertOn(seLinuxPod(), false); len(got) != 0 {
		t.Errorf("without SELinux: issues %v, want none", got)
	}
	got := convertOn(seLinuxPod(), true)
	want := []string{
		"spec.containers[0].securityContext.seLinuxOptions",
		"spec.initContainers[0].securityContext.seLinuxOptions",
		"spec.securityContext.seLinuxOptions",
	}
	var paths []string
	for _, is := range got {
		paths = append(paths, is.Path)
		if is.Severity != Error || !strings.Contains(is.Message, "this host runs SELinux") {
			t.Errorf("issue %+v: want an error saying the host runs SELinux", is)
		}
	}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("with SELinux: paths %v, want %v", paths, want)
	}
}
