package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/podlife/podlife/podlife/kube"
)

// annotationServiceEnv, on the v1.Pod the node saves (adopt.go), holds the Service variables
// the pod's containers were created with (JSON), so that a later process of the node converts
// the pod as it was started and adopts it, whatever Services came or went meanwhile: as on a
// kubelet, Service changes do not restart containers. It never reaches the API server nor the
// pod's downward API.
const annotationServiceEnv = "podlife.io/service-env"

// serviceEnvs gives pods the kubelet's Service environment variables (FOO_SERVICE_HOST...,
// kube.ServiceEnv) from a cache of the cluster's Services (the Node authorizer lets a node
// list and watch them, as a kubelet's service lister does). Each pod's variables are fixed
// when it is first converted and kept for its life.
type serviceEnvs struct {
	lister corelisters.ServiceLister
	synced cache.InformerSynced

	mu    sync.Mutex
	byPod map[string]podServiceEnv // by podlife name
}

type podServiceEnv struct {
	uid types.UID
	env map[string]string
}

func newServiceEnvs(lister corelisters.ServiceLister, synced cache.InformerSynced) *serviceEnvs {
	return &serviceEnvs{lister: lister, synced: synced, byPod: map[string]podServiceEnv{}}
}

// serviceSyncWait bounds wait: a node whose Services cannot be listed (an authorizer that
// refuses it) still runs pods, without those variables, rather than holding its workers.
const serviceSyncWait = time.Minute

// wait returns once the Services were listed once, as the kubelet waits before it makes a
// container's environment (so that no pod misses KUBERNETES_SERVICE_HOST after a restart), or
// after serviceSyncWait (logged: the pods then get the variables of the Services known).
func (s *serviceEnvs) wait(ctx context.Context, log *slog.Logger) error {
	if s == nil || s.synced() {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, serviceSyncWait)
	defer cancel()
	if cache.WaitForCacheSync(wctx.Done(), s.synced) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("services have not yet been read at least once, cannot construct envvars: %w", err)
	}
	log.Warn("services not listed yet: pods start without their variables", "waited", serviceSyncWait)
	return nil
}

// serviceEnv returns the Service variables of pod, podlife name name: those it was given
// already (by this process, or saved by an earlier one in pod's annotationServiceEnv or the
// saved v1.Pod's), else the current ones.
func (pr *provider) serviceEnv(pod *corev1.Pod, name string) map[string]string {
	s := pr.services
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.byPod[name]; ok && e.uid == pod.UID {
		return e.env
	}
	env, ok := savedServiceEnv(pod)
	if !ok {
		if saved, err := pr.loadSaved(name); err == nil && saved != nil && saved.UID == pod.UID {
			env, ok = savedServiceEnv(saved)
		}
	}
	if !ok {
		services, err := s.lister.List(labels.Everything())
		if err != nil {
			pr.log.Warn("list services", "err", err)
		}
		env = kube.ServiceEnv(pod.Namespace, pod.Spec.EnableServiceLinks, services)
	}
	s.byPod[name] = podServiceEnv{uid: pod.UID, env: env}
	return env
}

// savedServiceEnv decodes pod's annotationServiceEnv.
func savedServiceEnv(pod *corev1.Pod) (map[string]string, bool) {
	v, ok := pod.Annotations[annotationServiceEnv]
	if !ok {
		return nil, false
	}
	var env map[string]string
	if err := json.Unmarshal([]byte(v), &env); err != nil {
		return nil, false
	}
	return env, true
}

// withServiceEnv returns pod with the Service variables it was given in annotationServiceEnv,
// for save; pod itself if it has none.
func (pr *provider) withServiceEnv(name string, pod *corev1.Pod) *corev1.Pod {
	s := pr.services
	if s == nil {
		return pod
	}
	s.mu.Lock()
	e, ok := s.byPod[name]
	s.mu.Unlock()
	if !ok || e.uid != pod.UID {
		return pod
	}
	b, err := json.Marshal(e.env)
	if err != nil {
		return pod
	}
	out := pod.DeepCopy()
	out.Annotations = maps.Clone(out.Annotations)
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[annotationServiceEnv] = string(b)
	return out
}

// forgetServiceEnv drops the variables of a podlife pod removed.
func (pr *provider) forgetServiceEnv(name string) {
	if s := pr.services; s != nil {
		s.mu.Lock()
		delete(s.byPod, name)
		s.mu.Unlock()
	}
}

// withoutServiceEnv returns pod without annotationServiceEnv (a saved v1.Pod's), for
// conversion: the annotation is the node's, not the pod's downward API's.
func withoutServiceEnv(pod *corev1.Pod) *corev1.Pod {
	if _, ok := pod.Annotations[annotationServiceEnv]; !ok {
		return pod
	}
	out := pod.DeepCopy()
	delete(out.Annotations, annotationServiceEnv)
	if len(out.Annotations) == 0 {
		out.Annotations = nil
	}
	return out
}
