package podlife

import (
	"context"
	"testing"
	"time"
)

// Publishing never blocks on a subscriber that does not read; it loses events and is told so.
func TestBusNeverBlocks(t *testing.T) {
	b := newBus(nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := b.subscribe(ctx, false, nil)
	done := make(chan struct{})
	go func() {
		for i := range subscriberBuffer + 10 {
			b.publish(Event{Reason: "E", Message: string(rune('a' + i%26))})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("publish blocked on a slow subscriber")
	}
	for range subscriberBuffer {
		<-ch
	}
	b.publish(Event{Reason: "after"})
	if e := <-ch; e.Reason != ReasonEventsDropped || e.Message != "10 events dropped: subscriber too slow" {
		t.Errorf("got %+v, want an EventsDropped event counting 10", e)
	}
	if e := <-ch; e.Reason != "after" {
		t.Errorf("got %+v after the drop notice, want the event that followed it", e)
	}
}

// The ring keeps the latest events, oldest first; a replaying subscriber gets them first.
func TestBusRingAndReplay(t *testing.T) {
	b := newBus(nil)
	for i := range eventRingSize + 3 {
		b.publish(Event{Message: string(rune(i))})
	}
	rec := b.recent()
	if len(rec) != eventRingSize || rec[0].Message != string(rune(3)) || rec[len(rec)-1].Message != string(rune(eventRingSize+2)) {
		t.Fatalf("ring: %d events from %q to %q", len(rec), rec[0].Message, rec[len(rec)-1].Message)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := b.subscribe(ctx, true, nil)
	if e := <-ch; e.Message != string(rune(3)) {
		t.Errorf("replay starts with %q", e.Message)
	}
	cancel()
	for range ch {
	}
}
