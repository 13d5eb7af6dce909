package eventbus

import (
	"context"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Publishing never blocks on a subscriber that does not read; it loses events and is told so.
func TestBusNeverBlocks(t *testing.T) {
	b := New(nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := b.Subscribe(ctx, false, nil)
	done := make(chan struct{})
	go func() {
		for i := range SubscriberBuffer + 10 {
			b.Publish(api.Event{Reason: "E", Message: string(rune('a' + i%26))})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("publish blocked on a slow subscriber")
	}
	for range SubscriberBuffer {
		<-ch
	}
	b.Publish(api.Event{Reason: "after"})
	if e := <-ch; e.Reason != api.ReasonEventsDropped || e.Message != "10 events dropped: subscriber too slow" {
		t.Errorf("got %+v, want an EventsDropped event counting 10", e)
	}
	if e := <-ch; e.Reason != "after" {
		t.Errorf("got %+v after the drop notice, want the event that followed it", e)
	}
}

// The ring keeps the latest events, oldest first; a replaying subscriber gets them first.
func TestBusRingAndReplay(t *testing.T) {
	b := New(nil)
	for i := range RingSize + 3 {
		b.Publish(api.Event{Message: string(rune(i))})
	}
	rec := b.Recent()
	if len(rec) != RingSize || rec[0].Message != string(rune(3)) || rec[len(rec)-1].Message != string(rune(RingSize+2)) {
		t.Fatalf("ring: %d events from %q to %q", len(rec), rec[0].Message, rec[len(rec)-1].Message)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := b.Subscribe(ctx, true, nil)
	if e := <-ch; e.Message != string(rune(3)) {
		t.Errorf("replay starts with %q", e.Message)
	}
	cancel()
	for range ch {
	}
}
