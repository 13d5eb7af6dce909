package main

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/podlife/podlife/examples/node/internal/volumes"
)

// removeVolumes removes the node volumes of the podlife pod name, if the node has any.
func (pr *provider) removeVolumes(name string) {
	if pr.tokens == nil {
		return
	}
	if err := pr.tokens.Remove(name); err != nil {
		pr.log.Warn("remove node volumes", "podlife", name, "err", err)
	}
}

// resolver returns the projection's resolve of the podlife pod name: its node volumes' files
// converted from its current v1.Pod (the metadata UpdatePod keeps) and objects.
func (pr *provider) resolver(name string) func(context.Context) ([]volumes.NodeVolume, error) {
	return func(ctx context.Context) ([]volumes.NodeVolume, error) {
		pr.mu.Lock()
		var pod *corev1.Pod
		if e := pr.byName[name]; e != nil {
			pod = e.pod.DeepCopy()
		}
		pr.mu.Unlock()
		if pod == nil {
			return nil, volumes.ErrPodGone
		}
		objects := pr.objects
		objects.forbiddenWait = 0 // the pod is known to the API server's Node authorizer by now
		_, vols, err := pr.convertWith(ctx, objects, pod, false)
		return vols, err
	}
}
