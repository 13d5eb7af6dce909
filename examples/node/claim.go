package main

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/podlife/podlife/examples/node/internal/names"
	"github.com/podlife/podlife/podlife"
)

// errNameTaken: the podlife name a Kubernetes pod maps to is already another pod's. The node
// refuses to run the pod rather than touch the other one (its saved v1.Pod, its containers).
var errNameTaken = errors.New("podlife name taken by another pod")

// podName returns the podlife name of pod: names.Podlife, or names.Legacy when the node's
// previous process (of a version before names.Podlife) started the pod under that name, which
// its saved v1.Pod tells, so that an upgraded node still adopts and deletes the pods it ran.
func (pr *provider) podName(pod *corev1.Pod) string {
	old := names.Legacy(pod.Namespace, pod.Name)
	if saved, err := pr.loadSaved(old); err == nil && saved != nil && sameObject(saved, pod) {
		return old
	}
	return names.Podlife(pod.Namespace, pod.Name)
}

// sameObject reports whether a and b are the same namespace/name.
func sameObject(a, b *corev1.Pod) bool { return a.Namespace == b.Namespace && a.Name == b.Name }

// register enters e as the pod k, unless its podlife name is another pod's of this process.
func (pr *provider) register(k string, e *entry) error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if other := pr.byName[e.name]; other != nil {
		return nameTaken(e.name, key(other.pod.Namespace, other.pod.Name), k)
	}
	pr.pods[k] = e
	pr.byName[e.name] = e
	return nil
}

// unregister removes the pod k entered by register.
func (pr *provider) unregister(k string, e *entry) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	delete(pr.pods, k)
	if pr.byName[e.name] == e {
		delete(pr.byName, e.name)
	}
}

// claim checks, before anything of the pod is saved or started, that its podlife name is not
// another Kubernetes pod's from before this process: a saved v1.Pod of another namespace/name,
// or a podlife pod of another namespace (left by an earlier process, or started by something
// else in the state dir). register checks the pods of this process.
func (pr *provider) claim(ctx context.Context, name string, pod *corev1.Pod) error {
	k := key(pod.Namespace, pod.Name)
	saved, err := pr.loadSaved(name)
	if err != nil {
		return fmt.Errorf("podlife name %s: %w", name, err)
	}
	if saved != nil && !sameObject(saved, pod) {
		return nameTaken(name, key(saved.Namespace, saved.Name), k)
	}
	rec, err := pr.rt.LookupPod(ctx, name)
	switch {
	case errors.Is(err, podlife.ErrNotFound):
	case err != nil:
		return fmt.Errorf("podlife name %s: %w", name, err)
	case rec.Namespace != pod.Namespace:
		return nameTaken(name, "a pod of namespace "+rec.Namespace, k)
	}
	return nil
}

// nameTaken is the error of a pod k whose podlife name is owner's.
func nameTaken(name, owner, k string) error {
	return fmt.Errorf("%w: %s is %s's, refusing to run %s on it", errNameTaken, name, owner, k)
}
