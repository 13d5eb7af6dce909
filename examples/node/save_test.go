package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"

	"github.com/podlife/podlife/podlife/kube"
)

// The v1.Pod the node keeps under its state dir (for a restarted node) refers to its Secrets;
// it holds none of their data, though the converted spec does.
func TestSavedPodHasNoSecretData(t *testing.T) {
	const marker = "sekret-node-7f3a9c1e"
	client := fake.NewClientset(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "default"},
		Data: map[string][]byte{"password": []byte(marker)}})
	pr := newProvider(nil, objectSource{client: client.CoreV1()},
		record.NewFakeRecorder(100), slog.New(slog.DiscardHandler), "127.0.0.1", kube.Options{})
	pr.stateDir = t.TempDir()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "u1"}, Spec: corev1.PodSpec{
		Volumes: []corev1.Volume{{Name: "sec", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "creds"}}}},
		Containers: []corev1.Container{{Name: "app", Image: "busybox:1",
			Env:          []corev1.EnvVar{{Name: "PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Key: "password"}}}},
			EnvFrom:      []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}}}},
			VolumeMounts: []corev1.VolumeMount{{Name: "sec", MountPath: "/sec"}},
		}},
	}}
	spec, _, err := pr.convert(context.Background(), pod)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Containers[0].Env[0].Value != marker {
		t.Fatalf("the converted spec lacks the secret: %+v", spec.Containers[0].Env)
	}
	pr.save(spec.Name, pod)
	b, err := os.ReadFile(filepath.Join(pr.podsDir(), spec.Name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(marker)) || bytes.Contains(b, []byte(base64.StdEncoding.EncodeToString([]byte(marker)))) {
		t.Errorf("the saved v1.Pod holds the Secret's data: %s", b)
	}
}
