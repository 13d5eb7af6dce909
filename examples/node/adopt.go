package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// A restarted node adopts the pods its previous process started (podlife's pods outlive their
// manager): virtual-kubelet asks CreatePod for each pod the API server assigns to the node,
// and start adopts the podlife pod of that name if one runs unmanaged, instead of starting it
// again. The node keeps each pod's v1.Pod next to the podlife state (podsDir), so that a pod
// deleted from the API server while no node process ran can still be stopped as it should be
// (preStop hooks, grace period) and removed: see reapDeleted.

// start starts spec, or adopts the pod of that name that the node's previous process left. It
// returns once podlife admitted the pod (admit): the start goes on.
func (pr *provider) start(ctx context.Context, spec podlife.PodSpec) (*podlife.Pod, error) {
	rec, err := pr.rt.LookupPod(ctx, spec.Name)
	if err != nil || rec.Managed() {
		return pr.admit(spec)
	}
	p, err := pr.rt.Adopt(ctx, spec)
	switch {
	case err == nil && p.Status().Reason != reasons.StartInterrupted:
		pr.log.Info("pod adopted", "podlife", spec.Name)
		return p, nil
	case err == nil: // its start was interrupted: start it afresh
		_ = p.Remove(ctx)
	case errors.Is(err, podlife.ErrSpecChanged):
		if err := pr.removePod(ctx, spec.Name); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("adopt: %w", err)
	}
	pr.log.Info("pod replaced", "podlife", spec.Name, "adopt", err)
	return pr.admit(spec)
}

// podsDir holds the v1.Pod of each podlife pod the node runs, by podlife name.
func (pr *provider) podsDir() string { return filepath.Join(pr.stateDir, "k8s-pods") }

// save keeps the pod's v1.Pod for a later process of the node.
func (pr *provider) save(name string, pod *corev1.Pod) {
	if pr.stateDir == "" {
		return
	}
	b, err := json.Marshal(pod)
	if err == nil {
		err = os.MkdirAll(pr.podsDir(), 0o700)
	}
	if err == nil {
		tmp := filepath.Join(pr.podsDir(), "."+name+".tmp")
		if err = os.WriteFile(tmp, b, 0o600); err == nil {
			err = os.Rename(tmp, filepath.Join(pr.podsDir(), name+".json"))
		}
	}
	if err != nil {
		pr.log.Warn("save pod", "podlife", name, "err", err)
	}
}

// loadSaved returns the v1.Pod saved under the podlife name, nil if there is none.
func (pr *provider) loadSaved(name string) (*corev1.Pod, error) {
	if pr.stateDir == "" {
		return nil, nil
	}
	b, err := os.ReadFile(filepath.Join(pr.podsDir(), name+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("saved pod: %w", err)
	}
	var pod corev1.Pod
	if err := json.Unmarshal(b, &pod); err != nil {
		return nil, fmt.Errorf("saved pod %s: %w", name, err)
	}
	return &pod, nil
}

func (pr *provider) forget(name string) {
	pr.services.Forget(name)
	if pr.stateDir != "" {
		_ = os.Remove(filepath.Join(pr.podsDir(), name+".json"))
	}
}

// reapDeleted stops and removes the pods the node's previous process left whose Kubernetes pod
// is gone from the API server, is being deleted, or was replaced by another of the same name: adopted from the
// kept v1.Pod so that their preStop hooks run, else removed without them.
func (pr *provider) reapDeleted(ctx context.Context, pods func(ns string) typedcorev1.PodInterface) {
	recs, err := pr.rt.ListPods(ctx)
	if err != nil {
		pr.log.Warn("list pods", "err", err)
		return
	}
	for _, rec := range recs {
		if rec.Managed() {
			continue
		}
		saved, err := pr.loadSaved(rec.Name)
		if err != nil || saved == nil {
			continue // not a pod of this node
		}
		pod := *saved
		cur, err := pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err == nil && cur.UID == pod.UID && cur.DeletionTimestamp == nil {
			continue // CreatePod adopts it
		}
		if err == nil && cur.UID == pod.UID && cur.DeletionGracePeriodSeconds != nil {
			pod.Spec.TerminationGracePeriodSeconds = cur.DeletionGracePeriodSeconds
		}
		if err != nil && !apierrors.IsNotFound(err) {
			pr.log.Warn("get pod", "pod", key(pod.Namespace, pod.Name), "err", err)
			continue
		}
		var opts []podlife.StopOption
		if g := pod.Spec.TerminationGracePeriodSeconds; g != nil {
			opts = append(opts, podlife.WithGracePeriod(time.Duration(*g)*time.Second))
		}
		objects := pr.objects
		if err != nil || cur.UID != pod.UID {
			// The pod is gone (or another has its name): the Node authorizer no longer
			// lets the node read its ConfigMaps and Secrets (a refusal is final, no retry).
			objects.forbiddenWait = 0
		}
		if spec, _, err := pr.convertFrom(ctx, objects, &pod); err == nil {
			spec.Name = rec.Name // names.Legacy's, if an older node started it
			if p, err := pr.rt.Adopt(ctx, spec); err == nil {
				if err := p.Stop(ctx, opts...); err != nil {
					pr.log.Warn("stop pod", "podlife", rec.Name, "err", err)
				}
				if err := p.Remove(ctx); err != nil {
					pr.log.Warn("remove pod", "podlife", rec.Name, "err", err)
				} else {
					pr.forget(rec.Name)
					pr.removeVolumes(rec.Name)
				}
				pr.log.Info("deleted pod adopted and removed", "pod", key(pod.Namespace, pod.Name))
				continue
			}
		}
		if err := pr.removePod(ctx, rec.Name, opts...); err != nil {
			pr.log.Warn("remove pod", "podlife", rec.Name, "err", err)
			continue
		}
		pr.forget(rec.Name)
		pr.removeVolumes(rec.Name)
		pr.log.Info("deleted pod removed", "pod", key(pod.Namespace, pod.Name))
	}
}
