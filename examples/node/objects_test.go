package main

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// TestObjectsGetsOnlyReferences: the node reads a pod's ConfigMaps and Secrets with one GET per
// object the pod names, in its namespace, and never lists or watches them; a missing one is
// left out; a Forbidden answer (the Node authorizer not yet aware of the pod) is retried.
func TestObjectsGetsOnlyReferences(t *testing.T) {
	client := fake.NewClientset(
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cfg"}, Data: map[string]string{"k": "v"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vol"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "env"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "unrelated"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "vol"}},
	)
	refusals := 2
	client.PrependReactor("get", "secrets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.(clienttesting.GetAction).GetName() == "env" && refusals > 0 {
			refusals--
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "env", nil)
		}
		return false, nil, nil
	})
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"},
		Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{
				{Name: "a", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "vol"}}},
				{Name: "b", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "missing"}}}},
			},
			Containers: []corev1.Container{{
				Name: "c",
				Env: []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{
					SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "env"}, Key: "k"}}}},
				EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}},
			}},
		},
	}
	objs, err := objectSource{client: client.CoreV1(), forbiddenWait: 10 * time.Second}.objects(context.Background(), pod)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.Secrets) != 2 || objs.Secrets["vol"] == nil || objs.Secrets["env"] == nil || objs.Secrets["vol"].Namespace != "ns" {
		t.Errorf("secrets %v: want vol and env of ns", objs.Secrets)
	}
	if len(objs.ConfigMaps) != 1 || objs.ConfigMaps["cfg"].Data["k"] != "v" {
		t.Errorf("configmaps %v: want cfg only (missing left out)", objs.ConfigMaps)
	}
	var calls []string
	for _, a := range client.Actions() {
		name := ""
		if g, ok := a.(clienttesting.GetAction); ok {
			name = g.GetName()
		}
		calls = append(calls, a.GetVerb()+" "+a.GetResource().Resource+" "+a.GetNamespace()+"/"+name)
	}
	slices.Sort(calls)
	want := []string{
		"get configmaps ns/cfg", "get configmaps ns/missing",
		"get secrets ns/env", "get secrets ns/env", "get secrets ns/env", "get secrets ns/vol",
	}
	if !slices.Equal(calls, want) {
		t.Errorf("API calls %q, want %q", calls, want)
	}

	// A Forbidden answer that lasts is an error naming the object, after forbiddenWait.
	refusals = 1 << 20
	start := time.Now()
	_, err = objectSource{client: client.CoreV1(), forbiddenWait: 300 * time.Millisecond}.objects(context.Background(), pod)
	if !apierrors.IsForbidden(err) || time.Since(start) > 5*time.Second {
		t.Errorf("objects with a lasting Forbidden: %v after %v, want Forbidden within the wait", err, time.Since(start))
	}
}
