package warmpool

import (
	"errors"
	"testing"
)

// A pool is filled to its target one make at a time (at most maxMaking at once), hands out its
// oldest member, drops what a lower target no longer wants, and bounds all targets together.
func TestPools(t *testing.T) {
	ps := New[int](3)
	if _, err := ps.SetTarget("a", 2, "tmpl-a"); err != nil {
		t.Fatal(err)
	}
	if _, err := ps.SetTarget("b", 2, "tmpl-b"); !errors.Is(err, ErrLimit) {
		t.Fatalf("SetTarget beyond the limit: %v, want ErrLimit", err)
	}
	key, tmpl, ok := ps.Next(1)
	if !ok || key != "a" || tmpl != "tmpl-a" {
		t.Fatalf("Next = %q %v %v", key, tmpl, ok)
	}
	if _, _, ok := ps.Next(1); ok {
		t.Fatalf("Next beyond maxMaking")
	}
	if !ps.Made("a", 1, true) {
		t.Fatalf("Made: member 1 not kept")
	}
	ps.Next(1)
	ps.Made("a", 2, true)
	if _, _, ok := ps.Next(1); ok {
		t.Fatalf("Next with the pool full")
	}
	if m, ok := ps.Take("a"); !ok || m != 1 {
		t.Fatalf("Take = %d %v, want the oldest, 1", m, ok)
	}
	if !ps.Remove("a", 2) || ps.Remove("a", 2) {
		t.Fatalf("Remove of a ready member: not once")
	}
	ps.Next(1)
	ps.Made("a", 3, true)
	drop, err := ps.SetTarget("a", 0, "tmpl-a")
	if err != nil || len(drop) != 1 || drop[0] != 3 {
		t.Fatalf("SetTarget 0 dropped %v, %v; want [3]", drop, err)
	}
	if st := ps.Stats(); len(st) != 0 {
		t.Fatalf("Stats after the pool was dropped: %+v", st)
	}
	ps.SetTarget("b", 1, "tmpl-b")
	ps.Next(1)
	if left := ps.Close(); len(left) != 0 {
		t.Fatalf("Close returned %v", left)
	}
	if ps.Made("b", 4, true) {
		t.Fatalf("a member made after Close was kept")
	}
}
