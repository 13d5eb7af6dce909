package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/tools/record"

	"github.com/podlife/podlife/examples/node/internal/serviceenv"
	"github.com/podlife/podlife/examples/node/internal/stats"
	"github.com/podlife/podlife/examples/node/internal/volumes"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
	"github.com/podlife/podlife/podlife/podsecurity"
	"github.com/podlife/podlife/podlife/reasons"
)

// provider runs the pods the control plane schedules onto this node on a podlife Runtime. It
// implements virtual-kubelet's node.PodLifecycleHandler and node.PodNotifier, and with
// streams.go nodeutil.Provider (logs, exec).
type provider struct {
	rt       *podlife.Runtime
	objects  objectSource
	recorder record.EventRecorder
	log      *slog.Logger
	hostIP   string
	opts     kube.Options
	stateDir string // where the v1.Pods are kept for a restarted node (adopt.go); "" for none
	// podSecurity is the Pod Security level pods are checked against when converted (the
	// Runtime's own is privileged, as the node volumes are host directories).
	podSecurity podsecurity.Level
	// tokens materializes the configMap, secret, downwardAPI and projected volumes, tokens
	// included, and keeps them up to date (internal/volumes); nil leaves them to
	// kube.Convert, which writes files once and refuses serviceAccountToken sources.
	tokens *volumes.Projector
	// nodeName is the Node's name (the Summary API's); stats keeps the previous CPU samples
	// the Summary's rates are computed from (stats.go, internal/stats).
	nodeName string
	stats    stats.Summarizer
	// services gives the containers the kubelet's Service variables (internal/serviceenv); nil for
	// none.
	services *serviceenv.Envs

	life   context.Context // the start goroutines' (starting.go), ended by close
	stop   context.CancelFunc
	starts sync.WaitGroup

	mu     sync.Mutex
	pods   map[string]*entry // by "namespace/name"
	byName map[string]*entry // by podlife pod name
	notify func(*corev1.Pod)
}

// entry is a Kubernetes pod this node runs (or failed to start).
type entry struct {
	pod      *corev1.Pod  // as the API server gave it, with the status last reported
	name     string       // the podlife pod's name
	p        *podlife.Pod // nil until podlife admitted it, and after a failed start
	deleting bool
	// The goroutine that follows the pod's start (starting.go): cancel ends it, done is closed
	// when it has returned. Both nil until CreatePod launched it.
	cancel context.CancelFunc
	done   chan struct{}
	// replacement is a pod of the same namespace/name but another UID, which the API server
	// has in place of this one (replace.go): created once this one is removed.
	replacement *corev1.Pod
	// apiConds are the conditions other clients set on the pod's status through the API
	// server (conditions.go): readiness gates, DisruptionTarget...
	apiConds []corev1.PodCondition
	// ephemeral are the ephemeral containers the node started (ephemeral.go), by name.
	ephemeral map[string]bool
	// apiDeleted: DeletePod was called for the API server's deletion of the pod, which the node
	// finishes once the pod is removed (deleted.go).
	apiDeleted bool
	// resize is the node's resize conditions of the pod (resize.go).
	resize resizeState
}

func newProvider(rt *podlife.Runtime, objects objectSource, recorder record.EventRecorder, log *slog.Logger, hostIP string, opts kube.Options) *provider {
	life, stop := context.WithCancel(context.Background())
	return &provider{
		rt: rt, objects: objects, recorder: recorder, log: log, hostIP: hostIP, opts: opts,
		life: life, stop: stop,
		pods: map[string]*entry{}, byName: map[string]*entry{},
	}
}

func key(namespace, name string) string { return namespace + "/" + name }

// Reasons of the events the provider records on pods, besides the kubelet's that podlife
// reports.
const (
	// reasonUnsupportedField: a field podlife does not honour and drops (a warning of
	// kube.Convert); the pod runs without it.
	reasonUnsupportedField = "UnsupportedField"
	// reasonProviderFailed: the pod cannot run on podlife (an error of kube.Convert, or the
	// start failed); its status says ProviderFailed with the same message.
	reasonProviderFailed = "ProviderFailed"
	// reasonUpdateIgnored: a change to a running pod that podlife cannot apply in place.
	reasonUpdateIgnored = "UpdateIgnored"
)

// clusterHandled are the fields kube.Convert warns about because podlife alone has no
// scheduler or API server: on a node of a cluster the control plane has honoured them already.
var clusterHandled = []string{
	"spec.nodeName", "spec.nodeSelector", "spec.affinity", "spec.tolerations",
	"spec.topologySpreadConstraints", "spec.schedulerName", "spec.schedulingGates",
	"spec.priority", "spec.priorityClassName", "spec.preemptionPolicy", "spec.overhead",
	"spec.serviceAccount", "spec.serviceAccountName", "spec.automountServiceAccountToken",
	"spec.enableServiceLinks",
}

func handledByCluster(path string) bool {
	for _, p := range clusterHandled {
		if path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[") {
			return true
		}
	}
	return false
}

// CreatePod converts the pod with podlife/kube, against the ConfigMaps and Secrets it refers
// to, and starts it. Dropped fields are recorded as UnsupportedField events. A pod whose
// non-optional ConfigMap or Secret does not exist (yet) waits Pending for it, as on a kubelet
// (waiting.go). A pod that cannot run is refused with an error that virtual-kubelet reports as
// the pod's ProviderFailed status; each offending field is also recorded as a ProviderFailed
// event. A refusal the kubelet's admission makes too (another OS, a forbidden sysctl) is
// reported as the kubelet reports it: Failed, with its reason (rejected.go).
//
// CreatePod returns once podlife has admitted the pod: its start sequence goes on in a
// goroutine of the provider (starting.go), so that pods whose start never finishes do not hold
// virtual-kubelet's workers.
func (pr *provider) CreatePod(ctx context.Context, pod *corev1.Pod) error {
	k := key(pod.Namespace, pod.Name)
	pr.mu.Lock()
	_, exists := pr.pods[k]
	pr.mu.Unlock()
	if exists {
		return nil
	}
	if reason, message := admitOS(pod); reason != "" { // rejected.go
		return pr.reject(k, pod, reason, message)
	}
	if err := pr.services.Wait(ctx, pr.log); err != nil {
		return err
	}
	objs, err := pr.objects.objects(ctx, pod)
	if err != nil {
		return err
	}
	if reason, message, event := missingObjects(pod, objs); reason != "" {
		return pr.createWaiting(k, pod, reason, message, event) // waiting.go
	}
	spec, vols, reason, message, err := pr.convertOrWait(pod, objs)
	if reason != "" { // a container that cannot be created yet (waiting.go)
		return pr.createWaiting(k, pod, reason, message, "")
	}
	if err != nil {
		return err
	}
	// Registered before the start, so that the start's events are recorded on the pod; its
	// podlife name claimed before anything is saved (claim.go).
	e := &entry{pod: pod.DeepCopy(), name: spec.Name}
	err = pr.register(k, e)
	if err == nil {
		if err = pr.claim(ctx, spec.Name, pod); err != nil {
			pr.unregister(k, e)
		}
	}
	if err == nil && len(vols) > 0 {
		if err = pr.tokens.Project(ctx, spec.Name, pod, vols, pr.resolver(spec.Name)); err != nil {
			pr.removeVolumes(spec.Name)
			pr.unregister(k, e)
			err = errdefs.AsInvalidInput(fmt.Errorf("projected volumes: %w", err))
		}
	}
	if err != nil {
		pr.recorder.Event(pod, corev1.EventTypeWarning, reasonProviderFailed, err.Error())
		return err
	}
	pr.save(spec.Name, pr.services.Annotate(spec.Name, pod))
	// A pod of that name that the node's previous process left is adopted (or replaced) by the
	// start goroutine: that may take a stop. Else the pod is started here, so that podlife's
	// refusals (an invalid spec, Pod Security) are CreatePod's errors.
	var p *podlife.Pod
	if rec, lerr := pr.rt.LookupPod(ctx, spec.Name); lerr != nil || rec.Managed() {
		if p, err = pr.admit(spec); p == nil {
			pr.removeVolumes(spec.Name)
			pr.forget(spec.Name)
			pr.unregister(k, e)
			if reason, message, ok := kubeletRejects(err); ok { // rejected.go
				return pr.reject(k, pod, reason, message)
			}
			pr.recorder.Event(pod, corev1.EventTypeWarning, reasonProviderFailed, err.Error())
			return fmt.Errorf("start pod %s as %s: %w", k, spec.Name, err)
		}
	}
	pr.launch(e, spec, p)
	pr.log.Info("pod admitted", "pod", k, "podlife", spec.Name)
	return nil
}

// UpdatePod keeps the pod's new metadata, starts the ephemeral containers added to it
// (ephemeral.go), applies a new activeDeadlineSeconds (Pod.SetActiveDeadline: set, or
// shortened, as the API server allows) and resizes the containers whose resources changed
// (the resize subresource: resize.go). podlife applies no other change to a running pod's
// spec (the API server allows few: images, activeDeadlineSeconds, tolerations); a changed
// container image is recorded as an UpdateIgnored event.
func (pr *provider) UpdatePod(ctx context.Context, pod *corev1.Pod) error {
	pr.mu.Lock()
	e, ok := pr.pods[key(pod.Namespace, pod.Name)]
	if !ok {
		pr.mu.Unlock()
		return errdefs.NotFoundf("pod %s/%s is not on this node", pod.Namespace, pod.Name)
	}
	if pod.UID != e.pod.UID {
		pr.mu.Unlock()
		return pr.replaceLater(ctx, e, pod)
	}
	old := e.pod
	status := e.pod.Status
	e.pod = pod.DeepCopy()
	e.pod.Status = status
	name, p := e.name, e.p
	pr.mu.Unlock()
	if d, was := pod.Spec.ActiveDeadlineSeconds, old.Spec.ActiveDeadlineSeconds; p != nil && d != nil && (was == nil || *was != *d) {
		if err := p.SetActiveDeadline(ctx, time.Duration(*d)*time.Second); err != nil {
			pr.recorder.Eventf(pod, corev1.EventTypeWarning, reasonUpdateIgnored, "activeDeadlineSeconds %d not applied: %v", *d, err)
		}
	}
	if p != nil {
		pr.resizeContainers(e, p, old, pod) // resize.go
	}
	if pr.tokens != nil { // downwardAPI volumes follow the pod's labels and annotations
		pr.tokens.KickPod(name)
	}
	pr.startEphemeral(e) // ephemeral.go
	pr.sync(e)           // a new generation observed
	for i, c := range pod.Spec.Containers {
		if i < len(old.Spec.Containers) && old.Spec.Containers[i].Image != c.Image {
			pr.recorder.Eventf(pod, corev1.EventTypeWarning, reasonUpdateIgnored,
				"container %s: image %s not applied: podlife does not update running pods (delete the pod to run the new image)", c.Name, c.Image)
		}
	}
	return nil
}

// DeletePod stops the pod as the kubelet does (preStop hooks, SIGTERM, SIGKILL after the
// deletion's grace period), removes it, and then reports it terminated, upon which
// virtual-kubelet writes that status and the node deletes the pod from the API server with no
// grace (deleted.go). It returns once the stop has begun.
func (pr *provider) DeletePod(ctx context.Context, pod *corev1.Pod) error {
	k := key(pod.Namespace, pod.Name)
	pr.mu.Lock()
	e, ok := pr.pods[k]
	if !ok || e.done == nil {
		pr.mu.Unlock()
		return errdefs.NotFoundf("pod %s is not on this node", k)
	}
	if pod.UID != e.pod.UID { // a replacement deleted before it ran (replace.go)
		if e.replacement != nil && e.replacement.UID == pod.UID {
			e.replacement = nil
		}
		pr.mu.Unlock()
		return nil
	}
	if e.deleting {
		pr.mu.Unlock()
		return nil
	}
	e.deleting = true
	e.apiDeleted = pod.DeletionTimestamp != nil
	pr.mu.Unlock()
	grace := pod.DeletionGracePeriodSeconds
	if grace == nil {
		grace = pod.Spec.TerminationGracePeriodSeconds
	}
	var opts []podlife.StopOption
	if grace != nil {
		opts = append(opts, podlife.WithGracePeriod(time.Duration(*grace)*time.Second))
	}
	go pr.remove(e, opts)
	return nil
}

// remove stops and removes a deleted pod, then reports it terminated. A pod still starting is
// stopped as a started one (podlife's Stop cancels the start, a postStart hook included).
func (pr *provider) remove(e *entry, opts []podlife.StopOption) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	k := key(e.pod.Namespace, e.pod.Name)
	p := pr.abandon(e)
	pr.mu.Lock()
	prev := e.pod.Status
	pr.mu.Unlock()
	var final corev1.PodStatus
	if p != nil {
		if err := p.Stop(ctx, opts...); err != nil {
			pr.log.Warn("stop pod", "pod", k, "err", err)
		}
		final = terminatedStatus(podStatus(p.Status(), prev, pr.hostIP))
		if err := p.Remove(ctx); err != nil {
			pr.log.Warn("remove pod", "pod", k, "err", err)
		} else {
			pr.forget(e.name)
		}
	} else {
		final = terminatedStatus(prev)
		if err := pr.removeLeft(ctx, e.name, opts); err != nil {
			pr.log.Warn("remove pod", "pod", k, "err", err)
		}
	}
	pr.removeVolumes(e.name)
	pr.mu.Lock()
	delete(pr.pods, k)
	delete(pr.byName, e.name)
	pod := e.pod.DeepCopy()
	pod.Status = final
	notify := pr.notify
	next := e.replacement
	apiDeleted := e.apiDeleted
	pr.mu.Unlock()
	pr.log.Info("pod removed", "pod", k)
	if next != nil { // the API server has no object of this pod any more
		pr.recreate(next)
		return
	}
	if notify != nil {
		notify(pod)
	}
	if apiDeleted {
		pr.finishDeletion(ctx, pod) // deleted.go
	}
}

// GetPod returns the pod with its current status.
func (pr *provider) GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	pr.mu.Lock()
	e, ok := pr.pods[key(namespace, name)]
	pr.mu.Unlock()
	if !ok {
		return nil, errdefs.NotFoundf("pod %s/%s is not on this node", namespace, name)
	}
	return pr.current(e), nil
}

// GetPodStatus returns the pod's current status.
func (pr *provider) GetPodStatus(ctx context.Context, namespace, name string) (*corev1.PodStatus, error) {
	pod, err := pr.GetPod(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	return &pod.Status, nil
}

// GetPods returns every pod the node runs.
func (pr *provider) GetPods(ctx context.Context) ([]*corev1.Pod, error) {
	pr.mu.Lock()
	entries := make([]*entry, 0, len(pr.pods))
	for _, e := range pr.pods {
		entries = append(entries, e)
	}
	pr.mu.Unlock()
	out := make([]*corev1.Pod, 0, len(entries))
	for _, e := range entries {
		out = append(out, pr.current(e))
	}
	return out, nil
}

// current returns a copy of the entry's pod with podlife's current status.
func (pr *provider) current(e *entry) *corev1.Pod {
	pr.mu.Lock()
	pod := e.pod.DeepCopy()
	p := e.p
	pr.mu.Unlock()
	if p == nil { // not admitted yet, or its start failed (ProviderFailed)
		observed(pod)
		return pod
	}
	st := p.Status()
	if pr.relayGates(e, p, st) {
		st = p.Status()
	}
	pod.Status = podStatus(st, pod.Status, pr.hostIP)
	observed(pod)
	pr.mu.Lock()
	withAPIConditions(&pod.Status, e.apiConds)
	withResizeConditions(&pod.Status, e.resize.conds)
	pr.mu.Unlock()
	return pod
}

// NotifyPods registers the callback virtual-kubelet updates the API server with; the provider
// calls it whenever a pod's status changes.
func (pr *provider) NotifyPods(ctx context.Context, notify func(*corev1.Pod)) {
	pr.mu.Lock()
	pr.notify = notify
	pr.mu.Unlock()
}

// sync reports the entry's status if it changed since last reported.
func (pr *provider) sync(e *entry) {
	pod := pr.current(e)
	pr.mu.Lock()
	// A pod being deleted still reports its status (a readiness probe failing while it
	// terminates, as on a kubelet), until it is removed: remove reports the last one.
	removed := pr.pods[key(e.pod.Namespace, e.pod.Name)] != e
	if removed || equality.Semantic.DeepEqual(pod.Status, e.pod.Status) {
		pr.mu.Unlock()
		return
	}
	e.pod.Status = *pod.Status.DeepCopy()
	notify := pr.notify
	pr.mu.Unlock()
	if notify != nil {
		notify(pod)
	}
}

// watch follows the runtime's events until ctx ends: each is recorded on its pod as a
// Kubernetes event (with the container's field path, as the kubelet does) and the pod's new
// status is reported. Every resync it also reports statuses that changed without an event.
func (pr *provider) watch(ctx context.Context, resync time.Duration) {
	events := pr.rt.Subscribe(ctx)
	tick := time.NewTicker(resync)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			pr.mu.Lock()
			e := pr.byName[ev.Pod]
			pr.mu.Unlock()
			if e == nil {
				continue
			}
			pr.record(e, ev)
			pr.sync(e)
		case <-tick.C:
			pr.mu.Lock()
			entries := make([]*entry, 0, len(pr.pods))
			for _, e := range pr.pods {
				entries = append(entries, e)
			}
			pr.mu.Unlock()
			for _, e := range entries {
				pr.sync(e)
			}
		}
	}
}

// record records a podlife event on its Kubernetes pod.
func (pr *provider) record(e *entry, ev podlife.Event) {
	if ev.Reason == reasons.EventsDropped {
		return
	}
	pr.mu.Lock()
	ref := &corev1.ObjectReference{
		Kind: "Pod", APIVersion: "v1", Namespace: e.pod.Namespace, Name: e.pod.Name,
		UID: e.pod.UID, ResourceVersion: e.pod.ResourceVersion,
	}
	pr.mu.Unlock()
	if ev.Container != "" {
		ref.FieldPath = containerFieldPath(e.pod, ev.Container)
	}
	typ := corev1.EventTypeNormal
	if ev.Type == podlife.EventWarning {
		typ = corev1.EventTypeWarning
	}
	pr.recorder.Event(ref, typ, string(ev.Reason), ev.Message)
}

// containerFieldPath is the kubelet's field path of a container in its events.
func containerFieldPath(pod *corev1.Pod, name string) string {
	for _, c := range pod.Spec.InitContainers {
		if c.Name == name {
			return "spec.initContainers{" + name + "}"
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if c.Name == name {
			return "spec.ephemeralContainers{" + name + "}"
		}
	}
	return "spec.containers{" + name + "}"
}
