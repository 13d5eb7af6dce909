package goroutines

import (
	"maps"
	"testing"
	"time"
)

// Await waits for the group's goroutines, but for the caller's own, released ones, and, with
// names, those of other names.
func TestGroupAwait(t *testing.T) {
	g := NewGroup()
	stopA, stopB, stuck := make(chan struct{}), make(chan struct{}), make(chan struct{})
	defer close(stuck)
	g.Go("a", func() { <-stopA })
	g.Go("b", func() { <-stopB })
	released := g.Go("stuck", func() { <-stuck })
	expired := make(chan struct{})
	close(expired)
	if g.Await(expired) {
		t.Fatal("await: none left while a, b and stuck run")
	}
	g.Release(released)
	live, abandoned := g.Counts()
	if !maps.Equal(live, map[string]int{"a": 1, "b": 1}) || !maps.Equal(abandoned, map[string]int{"stuck": 1}) {
		t.Fatalf("counts: live %v, abandoned %v", live, abandoned)
	}
	close(stopA)
	if !g.Await(nil, "a") {
		t.Fatal("await a: not done")
	}
	if g.Await(expired, "b") {
		t.Fatal("await b: done while b runs")
	}
	// A goroutine of the group that awaits it does not wait for itself.
	self := make(chan bool, 1)
	g.Go("self", func() {
		<-stopB
		self <- g.Await(nil)
	})
	close(stopB)
	select {
	case ok := <-self:
		if !ok {
			t.Fatal("await from the group's own goroutine: false")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a goroutine of the group waited for itself")
	}
	if !g.Await(nil) {
		t.Fatal("await: not done")
	}
}
