package ownerloop

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/worker/goroutines"
)

// The test binary checks that no closure running on a loop hands it another closure.
func init() { EnableReentryCheck() }

// A closure that hands the loop another closure would wait for itself: the tests panic.
func TestLoopReentryPanics(t *testing.T) {
	l := New[int]()
	l.gid.Store(goroutines.ID()) // as if this goroutine were the loop
	defer func() {
		if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), "would wait for itself") {
			t.Errorf("recovered %v, want the re-entry panic", v)
		}
	}()
	l.Do(func() {})
}

// Closures run on the loop in turn; Update and a changing UpdateIf publish through changed, Do
// and an unchanging UpdateIf do not; once the loop ended nothing runs and the snapshot stays.
func TestLoopRunsAndPublishes(t *testing.T) {
	l := New[int]()
	state := 0
	publish := func() { v := state; l.Publish(&v) }
	publish()
	go l.Run(nil, publish)
	if !l.Do(func() { state = 1 }) || *l.Load() != 0 {
		t.Fatalf("after Do: snapshot %d, want 0 (unpublished)", *l.Load())
	}
	if !l.Update(func() { state = 2 }) || *l.Load() != 2 {
		t.Fatalf("after Update: snapshot %d, want 2", *l.Load())
	}
	if !l.UpdateIf(func() bool { state = 3; return false }) || *l.Load() != 2 {
		t.Fatalf("after UpdateIf false: snapshot %d, want 2", *l.Load())
	}
	if !l.UpdateIf(func() bool { state = 4; return true }) || *l.Load() != 4 {
		t.Fatalf("after UpdateIf true: snapshot %d, want 4", *l.Load())
	}
	l.End()
	select {
	case <-l.Done():
	default:
		t.Fatal("Done not closed after End")
	}
	ran := false
	if l.Do(func() { ran = true }) || l.Update(func() { ran = true }) || ran || *l.Load() != 4 {
		t.Fatalf("after End: ran %v, snapshot %d", ran, *l.Load())
	}
}

// The loop ends when Run's closing channel is closed.
func TestLoopEndsOnClosing(t *testing.T) {
	l := New[int]()
	closing := make(chan struct{})
	go l.Run(closing, func() {})
	close(closing)
	select {
	case <-l.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the loop did not end after closing")
	}
	if l.Do(func() {}) {
		t.Fatal("Do ran after the loop ended")
	}
}
