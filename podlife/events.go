package podlife

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// EventType is Normal or Warning, as in Kubernetes events.
type EventType string

// Event types.
const (
	EventNormal  EventType = "Normal"
	EventWarning EventType = "Warning"
)

// Event reasons. Those marked "kubelet" carry the kubelet's reason and message shape; the others
// are podlife's own, for moments the kubelet does not report (useful for timelines).
const (
	ReasonPulling             Reason = "Pulling"             // kubelet
	ReasonPulled              Reason = "Pulled"              // kubelet
	ReasonFailed              Reason = "Failed"              // kubelet: pull, create or start failed
	ReasonErrImageNeverPull   Reason = "ErrImageNeverPull"   // kubelet
	ReasonCreated             Reason = "Created"             // kubelet
	ReasonStarted             Reason = "Started"             // kubelet
	ReasonKilling             Reason = "Killing"             // kubelet
	ReasonBackOff             Reason = "BackOff"             // kubelet: crash-loop back-off
	ReasonUnhealthy           Reason = "Unhealthy"           // kubelet: a probe failed
	ReasonProbeWarning        Reason = "ProbeWarning"        // kubelet: a probe succeeded with a warning
	ReasonDeadlineExceeded    Reason = "DeadlineExceeded"    // kubelet: activeDeadlineSeconds
	ReasonFailedPostStartHook Reason = "FailedPostStartHook" // kubelet
	ReasonFailedPreStopHook   Reason = "FailedPreStopHook"   // kubelet
	ReasonLifecycleFallback   Reason = "LifecycleHTTPFallback"
	ReasonFailedCreateSandbox Reason = "FailedCreatePodSandBox" // kubelet
	ReasonSandboxReady        Reason = "SandboxReady"           // podlife: namespaces pinned and network attached
	ReasonPostStartCompleted  Reason = "PostStartHookCompleted" // podlife: a postStart hook returned successfully
	ReasonExited              Reason = "Exited"                 // podlife: a container's process exited
	ReasonStopped             Reason = "Stopped"                // podlife: every container stopped, network released
	ReasonRemoved             Reason = "Removed"                // podlife: everything of the pod deleted
	ReasonEventsDropped       Reason = "EventsDropped"          // podlife: a slow subscriber missed events
	// podlife: containerd stopped answering; the containers are left as they are while the
	// runtime reconnects (Warning).
	ReasonContainerdUnavailable Reason = "ContainerdUnavailable"
	// podlife: containerd answers again; the containers are followed again.
	ReasonContainerdRecovered Reason = "ContainerdRecovered"
	// podlife: the start policy had not returned when a stop cancelled it; the stop went on
	// without it, and the policy can start nothing more (Warning).
	ReasonStartPolicyAbandoned Reason = "StartPolicyAbandoned"
	// kubelet: the pod's sandbox died. In podlife only a pod's pause (ShareProcessNamespace)
	// can: its PID namespace, and every process in it, is gone with it, so the pod is stopped
	// and fails with this reason (the kubelet would recreate the sandbox) (Warning).
	ReasonSandboxChanged Reason = "SandboxChanged"
)

// Event is something that happened to a pod or one of its containers. Time is when it happened,
// not when it was delivered.
type Event struct {
	Time      time.Time `json:"time"`
	Pod       string    `json:"pod"`
	Container string    `json:"container,omitempty"`
	Type      EventType `json:"type"`
	Reason    Reason    `json:"reason"`
	Message   string    `json:"message,omitempty"`
}

// String formats the event like a `kubectl get events` line.
func (e Event) String() string {
	obj := "pod/" + e.Pod
	if e.Container != "" {
		obj += "{" + e.Container + "}"
	}
	return fmt.Sprintf("%s %-7s %-22s %s %s", e.Time.Format("15:04:05.000"), e.Type, e.Reason, obj, e.Message)
}

// eventRingSize is how many recent events each pod keeps.
const eventRingSize = 256

// subscriberBuffer is how many events a subscriber may lag behind before it loses some.
const subscriberBuffer = 1024

// bus keeps recent events and fans them out to subscribers. Publishing never blocks: a subscriber
// whose buffer is full loses events and later receives one EventsDropped event saying how many.
type bus struct {
	mu     sync.Mutex
	ring   []Event
	next   int
	full   bool
	subs   map[*subscriber]struct{}
	parent *bus // the runtime-wide bus, if any
}

type subscriber struct {
	ch      chan Event
	dropped int
	filter  func(Event) bool
}

func newBus(parent *bus) *bus {
	return &bus{ring: make([]Event, eventRingSize), subs: map[*subscriber]struct{}{}, parent: parent}
}

// publish records e and delivers it to every subscriber without blocking.
func (b *bus) publish(e Event) {
	b.mu.Lock()
	if b.ring != nil {
		b.ring[b.next] = e
		b.next = (b.next + 1) % len(b.ring)
		if b.next == 0 {
			b.full = true
		}
	}
	for s := range b.subs {
		s.deliver(e)
	}
	b.mu.Unlock()
	if b.parent != nil {
		b.parent.publish(e)
	}
}

func (s *subscriber) deliver(e Event) {
	if s.filter != nil && !s.filter(e) {
		return
	}
	if s.dropped > 0 {
		select {
		case s.ch <- Event{Time: e.Time, Pod: e.Pod, Type: EventWarning, Reason: ReasonEventsDropped,
			Message: fmt.Sprintf("%d events dropped: subscriber too slow", s.dropped)}:
			s.dropped = 0
		default:
			s.dropped++
			return
		}
	}
	select {
	case s.ch <- e:
	default:
		s.dropped++
	}
}

// recent returns the kept events, oldest first.
func (b *bus) recent() []Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.recentLocked()
}

// subscribe returns a channel of events published from now on; it is closed when ctx is done.
// With replay, the kept events are sent first.
func (b *bus) subscribe(ctx context.Context, replay bool, filter func(Event) bool) <-chan Event {
	s := &subscriber{ch: make(chan Event, subscriberBuffer), filter: filter}
	b.mu.Lock()
	if replay {
		for _, e := range b.recentLocked() {
			s.deliver(e)
		}
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	go func() {
		<-ctx.Done()
		b.mu.Lock()
		delete(b.subs, s)
		close(s.ch)
		b.mu.Unlock()
	}()
	return s.ch
}

func (b *bus) recentLocked() []Event {
	if !b.full {
		return append([]Event(nil), b.ring[:b.next]...)
	}
	return append(append([]Event(nil), b.ring[b.next:]...), b.ring[:b.next]...)
}
