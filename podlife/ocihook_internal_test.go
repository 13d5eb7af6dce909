package podlife

import (
	"context"
	"errors"
	"testing"

	"github.com/opencontainers/runtime-spec/specs-go"
)

// TestOCIHookFingerprint: ContainerSpec.OCIHook replaced SpecOpts without changing the spec
// fingerprints that records keep, so that pods started before it are adopted with no
// SpecChangedError: a spec without a hook fingerprints as one without SpecOpts, a spec with one
// as one with a single SpecOpts. The hashes are those of the manager before the change
// (72035b2).
func TestOCIHookFingerprint(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	hook := func(context.Context, *specs.Spec) error { return nil }
	for _, tc := range []struct {
		hook          func(context.Context, *specs.Spec) error
		keyed, legacy string
	}{
		{nil, "0eb458a3fa25f51d", "7cf98b9646731d7d"},
		{hook, "943270039c70b075", "e7f9dd0dfdde7f4a"},
	} {
		spec := PodSpec{Name: "p", Containers: []ContainerSpec{{Name: "c", Image: "busybox", OCIHook: tc.hook}}}
		if got := specHash(specFields(spec, key)); got != tc.keyed {
			t.Errorf("hook set %v: keyed spec hash %s, want %s (as before OCIHook)", tc.hook != nil, got, tc.keyed)
		}
		if got := specHash(specFields(spec, nil)); got != tc.legacy {
			t.Errorf("hook set %v: legacy spec hash %s, want %s (as before OCIHook)", tc.hook != nil, got, tc.legacy)
		}
	}
}

// TestOCIHookOpts: the hook becomes one spec option that gives it the spec and wraps its error.
func TestOCIHookOpts(t *testing.T) {
	if opts := ociHookOpts(nil); len(opts) != 0 {
		t.Fatalf("no hook: %d options, want none", len(opts))
	}
	boom := errors.New("boom")
	var seen *specs.Spec
	opts := ociHookOpts(func(_ context.Context, s *specs.Spec) error { seen = s; return boom })
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
