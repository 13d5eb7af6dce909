package worker

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
)

// await waits for the group's goroutines, but for the caller's own, released ones, and, with
// names, those of other names.
func TestGroupAwait(t *testing.T) {
	p := &Worker{goroutines: newGroup()}
	g := p.goroutines
	stopA, stopB, stuck := make(chan struct{}), make(chan struct{}), make(chan struct{})
	defer close(stuck)
	p.spawn("a", func() { <-stopA })
	p.spawn("b", func() { <-stopB })
	released := p.spawn("stuck", func() { <-stuck })
	expired := make(chan struct{})
	close(expired)
	if g.await(expired) {
		t.Fatal("await: none left while a, b and stuck run")
	}
	g.release(released)
	live, abandoned := g.counts()
	if !maps.Equal(live, map[string]int{"a": 1, "b": 1}) || !maps.Equal(abandoned, map[string]int{"stuck": 1}) {
		t.Fatalf("counts: live %v, abandoned %v", live, abandoned)
	}
	close(stopA)
	if !g.await(nil, "a") {
		t.Fatal("await a: not done")
	}
	if g.await(expired, "b") {
		t.Fatal("await b: done while b runs")
	}
	// A goroutine of the group that awaits it does not wait for itself.
	self := make(chan bool, 1)
	p.spawn("self", func() {
		<-stopB
		self <- g.await(nil)
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
	if !g.await(nil) {
		t.Fatal("await: not done")
	}
}

// The hooks of package hook end with their context; Go code may not.
func TestEndsWithContext(t *testing.T) {
	type foreign struct{ hook.Handler }
	for _, tc := range []struct {
		h    hook.Handler
		want bool
	}{
		{hook.Exec("true"), true},
		{hook.HTTPGet(80, "/"), true},
		{hook.Sleep(time.Second), true},
		{hook.HandlerFunc(func(context.Context, hook.Target) error { return nil }), false},
		{foreign{hook.Sleep(0)}, false},
		{&foreign{hook.Sleep(0)}, false},
	} {
		if got := endsWithContext(tc.h); got != tc.want {
			t.Errorf("endsWithContext(%T) = %v, want %v", tc.h, got, tc.want)
		}
	}
}
