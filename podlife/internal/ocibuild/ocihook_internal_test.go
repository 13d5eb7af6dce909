package ocibuild

import (
	"context"
	"errors"
	"testing"

	"github.com/opencontainers/runtime-spec/specs-go"
)

// TestOCIHookOpts: the hook becomes one spec option that gives it the spec and wraps its error.
func TestOCIHookOpts(t *testing.T) {
	if opts := OCIHookOpts(nil); len(opts) != 0 {
		t.Fatalf("no hook: %d options, want none", len(opts))
	}
	boom := errors.New("boom")
	var seen *specs.Spec
	opts := OCIHookOpts(func(_ context.Context, s *specs.Spec) error { seen = s; return boom })
	if len(opts) != 1 {
		t.Fatalf("a hook: %d options, want 1", len(opts))
	}
	s := &specs.Spec{}
	if err := opts[0](context.Background(), nil, nil, s); !errors.Is(err, boom) {
		t.Errorf("option error = %v, want the hook's", err)
	}
	if seen != s {
		t.Error("the hook did not get the spec being built")
	}
}
