package main

import (
	"log/slog"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/podlife/podlife/podlife/kube"
)

// TestMissingObjects: a missing non-optional volume source is the kubelet's ContainerCreating
// with a FailedMount event, a missing env source its CreateContainerConfigError with the
// object's "not found"; optional references and objects that exist hold nothing up.
func TestMissingObjects(t *testing.T) {
	ref := func(n string) corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: n} }
	objs := kube.Objects{ConfigMaps: map[string]*corev1.ConfigMap{"there": {Data: map[string]string{"a": "1"}}},
		Secrets: map[string]*corev1.Secret{"there": {Data: map[string][]byte{"b": []byte("2")}}}}
	for _, c := range []struct {
		name                   string
		spec                   corev1.PodSpec
		reason, message, event string
	}{
		{"all there", corev1.PodSpec{
			Volumes:    []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: ref("there")}}}},
			Containers: []corev1.Container{{EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: ref("there")}}}}},
		}, "", "", ""},
		{"optional", corev1.PodSpec{
			Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "gone", Optional: ptr.To(true)}}}},
			Containers: []corev1.Container{{Env: []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{
				ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: ref("gone"), Key: "k", Optional: ptr.To(true)}}}}}},
		}, "", "", ""},
		{"volume", corev1.PodSpec{
			Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: ref("there")}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: ref("gone")}},
			}}}}},
		}, reasonContainerCreating, "", `MountVolume.SetUp failed for volume "v" : secret "gone" not found`},
		{"volume key", corev1.PodSpec{
			Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: ref("there"), Items: []corev1.KeyToPath{{Key: "a", Path: "a"}, {Key: "z", Path: "z"}}}}}},
		}, reasonContainerCreating, "", `MountVolume.SetUp failed for volume "v" : configmap references non-existent config key: z`},
		{"env key", corev1.PodSpec{
			Containers: []corev1.Container{{Env: []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{
				SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: ref("there"), Key: "z"}}}}}},
		}, reasonCreateContainerConfigError, "couldn't find key z in Secret ns/there", ""},
		{"env", corev1.PodSpec{
			InitContainers: []corev1.Container{{Env: []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{
				ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: ref("gone"), Key: "k"}}}}}},
		}, reasonCreateContainerConfigError, `configmap "gone" not found`, ""},
	} {
		reason, message, event := missingObjects(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}, Spec: c.spec}, objs)
		if reason != c.reason || message != c.message || event != c.event {
			t.Errorf("%s: %q %q %q, want %q %q %q", c.name, reason, message, event, c.reason, c.message, c.event)
		}
	}
}

// TestWaitingStatus: Pending, PodScheduled kept, init containers waiting for the reason and the
// containers behind them PodInitializing.
func TestWaitingStatus(t *testing.T) {
	pod := &corev1.Pod{
		Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "init"}}, Containers: []corev1.Container{{Name: "app", Image: "img"}}},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}},
			QOSClass: corev1.PodQOSBestEffort},
	}
	st := waitingStatus(pod, reasonCreateContainerConfigError, "m")
	if st.Phase != corev1.PodPending || len(st.Conditions) != 1 || st.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("status %+v", st)
	}
	if w := st.InitContainerStatuses[0].State.Waiting; w == nil || w.Reason != reasonCreateContainerConfigError || w.Message != "m" {
		t.Errorf("init container %+v", st.InitContainerStatuses)
	}
	if w := st.ContainerStatuses[0].State.Waiting; w == nil || w.Reason != "PodInitializing" || st.ContainerStatuses[0].Image != "img" {
		t.Errorf("container %+v", st.ContainerStatuses)
	}
	if !sameWaiting(st, reasonCreateContainerConfigError, "m") || sameWaiting(st, reasonContainerCreating, "") {
		t.Error("sameWaiting")
	}
}

// TestContainerConfigError: a subPathExpr whose variable (an annotation, through the downward
// API) is missing is the kubelet's CreateContainerConfigError with its message, a pod to keep
// waiting; an error with any other issue is a refusal.
func TestContainerConfigError(t *testing.T) {
	pod := func(extra ...corev1.VolumeMount) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "var-expansion", Namespace: "ns", Annotations: map[string]string{"notmysubpath": "mypath"}},
			Spec: corev1.PodSpec{
				Volumes: []corev1.Volume{{Name: "workdir1", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				Containers: []corev1.Container{{Name: "c", Image: "busybox", Env: []corev1.EnvVar{
					{Name: "POD_NAME", Value: "foo"},
					{Name: "ANNOTATION", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.annotations['mysubpath']"}}},
				}, VolumeMounts: append([]corev1.VolumeMount{{Name: "workdir1", MountPath: "/subpath_mount", SubPathExpr: "$(ANNOTATION)/$(POD_NAME)"}}, extra...)}},
			},
		}
	}
	_, _, err := kube.Convert(pod(), kube.Objects{}, kube.Options{})
	if msg, ok := containerConfigError(err); !ok || msg != "missing value for ANNOTATION" {
		t.Errorf("missing annotation: containerConfigError(%v) = %q, %v; want the kubelet's message, true", err, msg, ok)
	}
	// As the provider's conversion returns it (convertObjects).
	pr := newProvider(nil, objectSource{}, nil, slog.New(slog.DiscardHandler), "", kube.Options{})
	_, _, err = pr.convertObjects(pod(), kube.Objects{}, false)
	if msg, ok := containerConfigError(err); !ok || msg != "missing value for ANNOTATION" {
		t.Errorf("missing annotation, convertObjects: containerConfigError(%v) = %q, %v; want the kubelet's message, true", err, msg, ok)
	}
	_, _, err = kube.Convert(pod(corev1.VolumeMount{Name: "nonexistent", MountPath: "/x"}), kube.Objects{}, kube.Options{})
	if msg, ok := containerConfigError(err); ok || err == nil {
		t.Errorf("with another issue: containerConfigError(%v) = %q, %v; want false", err, msg, ok)
	}
	p := pod()
	p.Annotations["mysubpath"] = "mypath"
	if _, _, err := kube.Convert(p, kube.Objects{}, kube.Options{}); err != nil {
		t.Errorf("with the annotation: %v", err)
	}
}
