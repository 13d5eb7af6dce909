package serviceenv

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

// Annotation, on the v1.Pod the node saves (adopt.go), holds the Service variables
// the pod's containers were created with (JSON), so that a later process of the node converts
// the pod as it was started and adopts it, whatever Services came or went meanwhile: as on a
// kubelet, Service changes do not restart containers. It never reaches the API server nor the
// pod's downward API.
const Annotation = "podlife.io/service-env"

// Envs gives pods the kubelet's Service environment variables (FOO_SERVICE_HOST...,
// kube.ServiceEnv) from a cache of the cluster's Services (the Node authorizer lets a node
// list and watch them, as a kubelet's service lister does). Each pod's variables are fixed
// when it is first converted and kept for its life.
type Envs struct {
	lister corelisters.ServiceLister
	synced cache.InformerSynced

	mu    sync.Mutex
	byPod map[string]podServiceEnv // by podlife name
}

// podServiceEnv is the variables a pod (of uid) was given.
type podServiceEnv struct {
	uid types.UID
	env map[string]string
}

// New returns the Envs of the Services of lister, listed once when synced.
func New(lister corelisters.ServiceLister, synced cache.InformerSynced) *Envs {
	return &Envs{lister: lister, synced: synced, byPod: map[string]podServiceEnv{}}
}

// serviceSyncWait bounds Wait: a node whose Services cannot be listed (an authorizer that
// refuses it) still runs pods, without those variables, rather than holding its workers.
const serviceSyncWait = time.Minute

// Wait returns once the Services were listed once, as the kubelet waits before it makes a
// container's environment (so that no pod misses KUBERNETES_SERVICE_HOST after a restart), or
// after serviceSyncWait (logged: the pods then get the variables of the Services known).
func (s *Envs) Wait(ctx context.Context, log *slog.Logger) error {
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

// Get returns the Service variables of pod, podlife name name: those it was given already
// (by this process, or saved by an earlier one in pod's Annotation or the saved v1.Pod's, that
// loadSaved returns), else the current ones; nil for a nil Envs.
func (s *Envs) Get(pod *corev1.Pod, name string, loadSaved func(name string) (*corev1.Pod, error), log *slog.Logger) map[string]string {
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
		if saved, err := loadSaved(name); err == nil && saved != nil && saved.UID == pod.UID {
			env, ok = savedServiceEnv(saved)
		}
	}
	if !ok {
		services, err := s.lister.List(labels.Everything())
		if err != nil {
			log.Warn("list services", "err", err)
		}
		env = kube.ServiceEnv(pod.Namespace, pod.Spec.EnableServiceLinks, services)
	}
	s.byPod[name] = podServiceEnv{uid: pod.UID, env: env}
	return env
}

// savedServiceEnv decodes pod's Annotation.
func savedServiceEnv(pod *corev1.Pod) (map[string]string, bool) {
	v, ok := pod.Annotations[Annotation]
	if !ok {
		return nil, false
	}
	var env map[string]string
	if err := json.Unmarshal([]byte(v), &env); err != nil {
		return nil, false
	}
	return env, true
}

// Annotate returns pod, podlife name name, with the Service variables it was given in
// Annotation, for save; pod itself if it has none.
func (s *Envs) Annotate(name string, pod *corev1.Pod) *corev1.Pod {
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
	out.Annotations[Annotation] = string(b)
	return out
}

// Forget drops the variables of a podlife pod removed.
func (s *Envs) Forget(name string) {
	if s != nil {
		s.mu.Lock()
		delete(s.byPod, name)
		s.mu.Unlock()
	}
}

// Without returns pod without Annotation (a saved v1.Pod's), for conversion: the annotation
// is the node's, not the pod's downward API's.
func Without(pod *corev1.Pod) *corev1.Pod {
	if _, ok := pod.Annotations[Annotation]; !ok {
		return pod
	}
	out := pod.DeepCopy()
	delete(out.Annotations, Annotation)
	if len(out.Annotations) == 0 {
		out.Annotations = nil
	}
	return out
}
