package clock

import (
	"context"
	"sync"
	"testing"
	"time"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// received returns the value waiting on c, if any, without blocking.
func received(c <-chan time.Time) (time.Time, bool) {
	select {
	case v := <-c:
		return v, true
	default:
		return time.Time{}, false
	}
}

func TestFakeAdvanceFiresInOrder(t *testing.T) {
	f := NewFake(epoch)
	var _ Clock = f
	a, b, c := f.NewTimer(3*time.Second), f.NewTimer(time.Second), f.NewTimer(3*time.Second)
	if n := f.Timers(); n != 3 {
		t.Fatalf("Timers = %d, want 3", n)
	}
	f.Advance(999 * time.Millisecond)
	for _, tm := range []Timer{a, b, c} {
		if v, ok := received(tm.C()); ok {
			t.Fatalf("timer fired early at %v", v)
		}
	}
	f.Advance(5 * time.Second)
	if got, want := f.Now(), epoch.Add(5999*time.Millisecond); !got.Equal(want) {
		t.Errorf("Now = %v, want %v", got, want)
	}
	for i, want := range []time.Time{epoch.Add(3 * time.Second), epoch.Add(time.Second), epoch.Add(3 * time.Second)} {
		tm := []Timer{a, b, c}[i]
		if v, ok := received(tm.C()); !ok || !v.Equal(want) {
			t.Errorf("timer %d: got %v, %v; want %v", i, v, ok, want)
		}
	}
	if n := f.Timers(); n != 0 {
		t.Errorf("Timers after firing = %d, want 0", n)
	}
}

func TestFakeZeroTimerFiresAtOnce(t *testing.T) {
	f := NewFake(epoch)
	for _, d := range []time.Duration{0, -time.Second} {
		tm := f.NewTimer(d)
		if v, ok := received(tm.C()); !ok || !v.Equal(epoch) {
			t.Errorf("NewTimer(%v): got %v, %v; want %v", d, v, ok, epoch)
		}
	}
	f.Advance(-time.Hour)
	if !f.Now().Equal(epoch) {
		t.Errorf("negative Advance moved time to %v", f.Now())
	}
}

func TestFakeStopReset(t *testing.T) {
	f := NewFake(epoch)
	tm := f.NewTimer(time.Second)
	if !tm.Stop() {
		t.Error("Stop of an active timer = false")
	}
	if tm.Stop() {
		t.Error("second Stop = true")
	}
	f.Advance(2 * time.Second)
	if _, ok := received(tm.C()); ok {
		t.Error("stopped timer fired")
	}
	if tm.Reset(time.Second) {
		t.Error("Reset of a stopped timer = true")
	}
	if !tm.Reset(2 * time.Second) {
		t.Error("Reset of an active timer = false")
	}
	f.Advance(time.Second)
	if _, ok := received(tm.C()); ok {
		t.Error("reset timer fired at its old deadline")
	}
	f.Advance(time.Second)
	if v, ok := received(tm.C()); !ok || !v.Equal(epoch.Add(4*time.Second)) {
		t.Errorf("reset timer: got %v, %v", v, ok)
	}
	// A fired but unreceived value is discarded by Reset and Stop.
	f.Advance(0)
	tm.Reset(time.Second)
	f.Advance(time.Second)
	tm.Reset(time.Second)
	if _, ok := received(tm.C()); ok {
		t.Error("stale value received after Reset")
	}
	f.Advance(time.Second)
	tm.Stop()
	if _, ok := received(tm.C()); ok {
		t.Error("stale value received after Stop")
	}
}

func TestFakeBlockUntil(t *testing.T) {
	f := NewFake(epoch)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 3 {
			tm := f.NewTimer(time.Second)
			<-tm.C()
		}
	})
	for i := range 3 {
		if err := f.BlockUntil(ctx, 1); err != nil {
			t.Fatalf("BlockUntil %d: %v", i, err)
		}
		f.Advance(time.Second)
	}
	wg.Wait()
	if got, want := f.Now(), epoch.Add(3*time.Second); !got.Equal(want) {
		t.Errorf("Now = %v, want %v", got, want)
	}
	short, cancelShort := context.WithCancel(context.Background())
	cancelShort()
	if err := f.BlockUntil(short, 1); err != context.Canceled {
		t.Errorf("BlockUntil with a cancelled context = %v", err)
	}
}

func TestReal(t *testing.T) {
	c := OrReal(nil)
	if _, ok := c.(Real); !ok {
		t.Fatalf("OrReal(nil) = %T", c)
	}
	if f := NewFake(epoch); OrReal(f) != Clock(f) {
		t.Error("OrReal(f) != f")
	}
	before := time.Now()
	if now := c.Now(); now.Before(before) {
		t.Errorf("Now = %v, before %v", now, before)
	}
	tm := c.NewTimer(time.Millisecond)
	select {
	case <-tm.C():
	case <-time.After(5 * time.Second):
		t.Fatal("real timer did not fire")
	}
	if tm.Stop() {
		t.Error("Stop after firing = true")
	}
	if tm.Reset(time.Hour) {
		t.Error("Reset of a fired timer = true")
	}
	if !tm.Stop() {
		t.Error("Stop of an active timer = false")
	}
}
