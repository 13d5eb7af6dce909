package podtable

import (
	"errors"
	"testing"

	"github.com/podlife/podlife/podlife/internal/api"
)

type pod struct{ name string }

func (p *pod) Name() string { return p.name }

// A name is taken once, by a start (Reserve, then Register or Unreserve) or an adoption
// (Adopted); Forget drops only the pod it is given; Close refuses what comes after it.
func TestTable(t *testing.T) {
	tb := New[*pod]()
	a := &pod{"a"}
	if err := tb.Reserve("a"); err != nil {
		t.Fatalf("Reserve a: %v", err)
	}
	if !tb.Reserved("a") {
		t.Error("a is not reserved")
	}
	if err := tb.Reserve("a"); !errors.Is(err, api.ErrAlreadyExists) {
		t.Errorf("second Reserve a: %v, want ErrAlreadyExists", err)
	}
	var me *api.ManagedError
	if err := tb.Adopted(&pod{"a"}); !errors.As(err, &me) || me.Pod != "a" {
		t.Errorf("Adopted a while reserved: %v, want a *ManagedError", err)
	}
	if err := tb.Register(a); err != nil {
		t.Fatalf("Register a: %v", err)
	}
	if tb.Reserved("a") {
		t.Error("a is still reserved once registered")
	}
	if got, err := tb.Get("a"); err != nil || got != a {
		t.Errorf("Get a = %v, %v", got, err)
	}
	if _, err := tb.Get("b"); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("Get b: %v, want ErrNotFound", err)
	}
	b := &pod{"b"}
	if err := tb.Adopted(b); err != nil {
		t.Fatalf("Adopted b: %v", err)
	}
	if err := tb.Reserve("b"); !errors.Is(err, api.ErrAlreadyExists) {
		t.Errorf("Reserve b once adopted: %v, want ErrAlreadyExists", err)
	}
	if l := tb.List(); len(l) != 2 || l[0] != a || l[1] != b {
		t.Errorf("List = %v, want a, b", l)
	}
	tb.Forget(&pod{"b"}) // another pod of that name: b stays
	if _, err := tb.Get("b"); err != nil {
		t.Errorf("Forget of another pod named b dropped b: %v", err)
	}
	tb.Forget(b)
	if _, err := tb.Get("b"); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("Get b after Forget: %v", err)
	}

	if err := tb.Reserve("c"); err != nil {
		t.Fatalf("Reserve c: %v", err)
	}
	pods, ok := tb.Close()
	if !ok || len(pods) != 1 || pods[0] != a || !tb.Closed() {
		t.Errorf("Close = %v, %v; Closed %v", pods, ok, tb.Closed())
	}
	if _, ok := tb.Close(); ok {
		t.Error("second Close ok")
	}
	if err := tb.Register(&pod{"c"}); !errors.Is(err, api.ErrClosed) || tb.Reserved("c") {
		t.Errorf("Register c after Close: %v (reserved %v), want ErrClosed and the name given back", err, tb.Reserved("c"))
	}
	if err := tb.Reserve("d"); !errors.Is(err, api.ErrClosed) {
		t.Errorf("Reserve after Close: %v, want ErrClosed", err)
	}
	if err := tb.Adopted(&pod{"d"}); !errors.Is(err, api.ErrClosed) {
		t.Errorf("Adopted after Close: %v, want ErrClosed", err)
	}
}
