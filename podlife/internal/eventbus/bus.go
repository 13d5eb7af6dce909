package eventbus

import (
	"context"
	"fmt"
	"sync"

	"github.com/podlife/podlife/podlife/internal/api"
)

// RingSize is how many recent events each pod keeps.
const RingSize = 256

// SubscriberBuffer is how many events a subscriber may lag behind before it loses some.
const SubscriberBuffer = 1024

// Bus keeps recent events and fans them out to subscribers. Publishing never blocks: a subscriber
// whose buffer is full loses events and later receives one EventsDropped event saying how many.
type Bus struct {
	mu     sync.Mutex
	ring   []api.Event
	next   int
	full   bool
	subs   map[*subscriber]struct{}
	parent *Bus // the runtime-wide bus, if any
}

type subscriber struct {
	ch      chan api.Event
	dropped int
	filter  func(api.Event) bool
}

// New makes a pod's bus, which keeps its recent events and passes each to parent (the
// Runtime's), if any.
func New(parent *Bus) *Bus {
	return &Bus{ring: make([]api.Event, RingSize), subs: map[*subscriber]struct{}{}, parent: parent}
}

// NewFanOut makes a bus that keeps no events and only fans them out (the Runtime's: each pod
// keeps its own history).
func NewFanOut() *Bus {
	return &Bus{subs: map[*subscriber]struct{}{}}
}

// Publish records e and delivers it to every subscriber without blocking.
func (b *Bus) Publish(e api.Event) {
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
		b.parent.Publish(e)
	}
}

func (s *subscriber) deliver(e api.Event) {
	if s.filter != nil && !s.filter(e) {
		return
	}
	if s.dropped > 0 {
		select {
		case s.ch <- api.Event{Time: e.Time, Pod: e.Pod, Type: api.EventWarning, Reason: api.ReasonEventsDropped,
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

// Recent returns the kept events, oldest first.
func (b *Bus) Recent() []api.Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.recentLocked()
}

// Subscribe returns a channel of events published from now on; it is closed when ctx is done.
// With replay, the kept events are sent first.
func (b *Bus) Subscribe(ctx context.Context, replay bool, filter func(api.Event) bool) <-chan api.Event {
	s := &subscriber{ch: make(chan api.Event, SubscriberBuffer), filter: filter}
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

func (b *Bus) recentLocked() []api.Event {
	if !b.full {
		return append([]api.Event(nil), b.ring[:b.next]...)
	}
	return append(append([]api.Event(nil), b.ring[b.next:]...), b.ring[:b.next]...)
}
