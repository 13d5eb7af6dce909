package kube_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
)

// downwardEnv is an env list of every fieldRef the kubelet resolves for env
// (podFieldSelectorRuntimeValue), spec.host (an old client's spec.nodeName) included.
func downwardEnv() []corev1.EnvVar {
	var env []corev1.EnvVar
	for _, f := range []struct{ name, path string }{
		{"POD_NAME", "metadata.name"}, {"POD_NAMESPACE", "metadata.namespace"}, {"POD_UID", "metadata.uid"},
		{"NODE", "spec.nodeName"}, {"HOST", "spec.host"}, {"SA", "spec.serviceAccountName"},
		{"HOST_IP", "status.hostIP"}, {"HOST_IPS", "status.hostIPs"},
		{"POD_IP", "status.podIP"}, {"POD_IPS", "status.podIPs"},
	} {
		env = append(env, corev1.EnvVar{Name: f.name, ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: f.path}}})
	}
	return env
}

// TestDownwardEnvAPIObject: a pod from the API server (podlife-node's) reads its API UID and
// node name as the kubelet gives them, and its IPs and the host's from podlife when the
// container is created.
func TestDownwardEnvAPIObject(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "dapi", Namespace: "ns1", UID: "3c0e5f0e-1b7a-4d8e-9a51-6f1c2d3e4f50"},
		Spec: corev1.PodSpec{NodeName: "node-a", ServiceAccountName: "robot", Containers: []corev1.Container{{
			Name: "c", Image: "busybox:1.36", Env: downwardEnv(),
			VolumeMounts: []corev1.VolumeMount{{Name: "info", MountPath: "/info"}},
		}}, Volumes: []corev1.Volume{{Name: "info", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
			Items: []corev1.DownwardAPIVolumeFile{{Path: "uid", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.uid"}}},
		}}}}},
	}
	spec, _, err := kube.Convert(pod, kube.Objects{}, kube.Options{NodeName: "not-this"})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "env", fmt.Sprint(spec.Containers[0].Env), "[{POD_NAME dapi} {POD_NAMESPACE ns1} "+
		"{POD_UID 3c0e5f0e-1b7a-4d8e-9a51-6f1c2d3e4f50} {NODE node-a} {HOST node-a} {SA robot} "+
		"{HOST_IP from status.hostIP} {HOST_IPS from status.hostIPs} {POD_IP from status.podIP} {POD_IPS from status.podIPs}]")
	var uidFile string
	for _, v := range spec.Volumes {
		if v.Name == "info" && v.Files != nil && len(v.Files.Files) == 1 {
			uidFile = string(v.Files.Files[0].Data)
		}
	}
	check(t, "downwardAPI volume uid", uidFile, "3c0e5f0e-1b7a-4d8e-9a51-6f1c2d3e4f50")
}

// TestDownwardEnvManifest: a manifest's pod has no UID before it runs (podlife's is read when
// the container is created) and no node: Options.NodeName, else the host's name.
func TestDownwardEnvManifest(t *testing.T) {
	manifest := pod("", "    env:\n") // the env list follows
	for _, e := range downwardEnv() {
		manifest += fmt.Sprintf("    - {name: %s, valueFrom: {fieldRef: {fieldPath: %s}}}\n", e.Name, e.ValueFrom.FieldRef.FieldPath)
	}
	res, err := loadString(kube.Options{NodeName: "edge-1"}, manifest)
	if err != nil {
		t.Fatal(err)
	}
	want := []podlife.EnvVar{{Name: "POD_NAME", Value: "p"}, {Name: "POD_NAMESPACE", Value: "default"},
		{Name: "POD_UID", From: "metadata.uid"}, {Name: "NODE", Value: "edge-1"}, {Name: "HOST", Value: "edge-1"},
		{Name: "SA", Value: "default"}, {Name: "HOST_IP", From: "status.hostIP"}, {Name: "HOST_IPS", From: "status.hostIPs"},
		{Name: "POD_IP", From: "status.podIP"}, {Name: "POD_IPS", From: "status.podIPs"}}
	checkSlice(t, "env", onePod(t, res).Containers[0].Env, want)

	res, err = loadString(kube.Options{}, manifest)
	if err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	check(t, "default node name", onePod(t, res).Containers[0].Env[3], podlife.EnvVar{Name: "NODE", Value: strings.ToLower(host)})
}

// TestDownwardEnvNotExpanded: a variable podlife resolves when it creates the container cannot
// be expanded into another value, command, args or subPathExpr: the reference is refused at
// its field, naming the variable and its field (never left as written, nor expanded empty);
// a later literal definition of the same name can be expanded.
func TestDownwardEnvNotExpanded(t *testing.T) {
	ref := "    - {name: IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}\n"
	for _, tc := range []struct{ name, container, path string }{
		{"value", "    env:\n" + ref + "    - {name: URL, value: 'http://$(IP):80'}\n", "spec.containers[0].env[1].value"},
		{"command", "    command: [echo, $(IP)]\n    env:\n" + ref, "spec.containers[0].command"},
		{"args", "    args: [$(IP)]\n    env:\n" + ref, "spec.containers[0].args"},
		{"subPathExpr", "    env:\n" + ref + "    volumeMounts: [{name: v, mountPath: /v, subPathExpr: $(IP)}]\n",
			"spec.containers[0].volumeMounts[0].subPathExpr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			manifest := pod("  volumes: [{name: v, emptyDir: {}}]\n", tc.container)
			_, err := loadString(kube.Options{}, manifest)
			is := loadErrors(t, err)
			checkSlice(t, "paths", paths(is), []string{tc.path})
			if !strings.Contains(is[0].Message, "$(IP)") || !strings.Contains(is[0].Message, "status.podIP") {
				t.Errorf("message %q names neither $(IP) nor status.podIP", is[0].Message)
			}
		})
	}
	res, err := loadString(kube.Options{}, pod("", "    args: [$(IP)]\n    env:\n"+ref+"    - {name: IP, value: fixed}\n"))
	if err != nil {
		t.Fatal(err)
	}
	check(t, "args", fmt.Sprint(onePod(t, res).Containers[0].Args), "[fixed]")
}
