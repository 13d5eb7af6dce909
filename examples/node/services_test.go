package main

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/podlife/podlife/examples/node/internal/serviceenv"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
)

// TestServiceEnvFixedForThePod: a pod's Service variables are those of the Services when it
// was first converted, saved with its v1.Pod (serviceenv.Annotation) so that a later process of
// the node converts it the same way (and adopts it) whatever Services came since; the
// annotation never reaches the converted pod (its downward API).
func TestServiceEnvFixedForThePod(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	add := func(ns, name, ip string) {
		_ = idx.Add(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: corev1.ServiceSpec{ClusterIP: ip, Ports: []corev1.ServicePort{{Port: 80}}}})
	}
	add("default", "kubernetes", "10.0.0.1")
	add("ns", "first", "10.0.0.2")
	newPr := func() *provider {
		pr, _ := unitProvider(t)
		pr.services = serviceenv.New(corelisters.NewServiceLister(idx), func() bool { return true })
		return pr
	}
	pr := newPr()
	pod := testPod("ns", "p")
	pod.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "ANN", ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.annotations['keep']"}}}, {Name: "LEAK", ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.annotations['" + serviceenv.Annotation + "']"}}}}
	pod.Annotations = map[string]string{"keep": "me"}
	name := pr.podName(pod)
	spec, _, err := pr.convertObjects(pod, nil2objs(), false)
	if err != nil {
		t.Fatal(err)
	}
	if env := envOf(spec.Containers[0].Env); env["FIRST_SERVICE_HOST"] != "10.0.0.2" || env["KUBERNETES_SERVICE_HOST"] != "10.0.0.1" {
		t.Fatalf("env %v, want the Services' variables", env)
	}
	pr.save(name, pr.services.Annotate(name, pod))
	add("ns", "second", "10.0.0.3") // after the pod started

	later := newPr() // a later process of the node, same state dir
	later.stateDir = pr.stateDir
	spec, _, err = later.convertObjects(pod, nil2objs(), false)
	if err != nil {
		t.Fatal(err)
	}
	env := envOf(spec.Containers[0].Env)
	if env["FIRST_SERVICE_HOST"] != "10.0.0.2" || env["SECOND_SERVICE_HOST"] != "" {
		t.Errorf("a later process's env %v, want the one the pod started with", env)
	}
	if env["ANN"] != "me" || env["LEAK"] != "" {
		t.Errorf("the downward API's annotations: keep %q, %s %q; want the pod's own only", env["ANN"], serviceenv.Annotation, env["LEAK"])
	}
	saved, err := later.loadSaved(name)
	if err != nil || saved == nil {
		t.Fatalf("saved pod: %v %v", saved, err)
	}
	if _, ok := saved.Annotations[serviceenv.Annotation]; !ok {
		t.Errorf("saved pod's annotations %v, want %s", saved.Annotations, serviceenv.Annotation)
	}
	spec, _, err = later.convertObjects(saved, nil2objs(), false)
	if leak := envOf(spec.Containers[0].Env)["LEAK"]; err != nil || leak != "" {
		t.Errorf("the saved pod converted: %s in the downward API %q (%v), want none", serviceenv.Annotation, leak, err)
	}
}

func nil2objs() kube.Objects { return kube.Objects{} }

func envOf(list []podlife.EnvVar) map[string]string {
	m := map[string]string{}
	for _, e := range list {
		m[e.Name] = e.Value
	}
	return m
}
