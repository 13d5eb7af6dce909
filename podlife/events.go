package podlife

import (
	"context"
	"fmt"
	"sync"
)

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
