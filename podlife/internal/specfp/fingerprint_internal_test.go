package specfp

import (
	"context"
	"testing"

	"github.com/opencontainers/runtime-spec/specs-go"
	"github.com/podlife/podlife/podlife/internal/api"
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
		spec := api.PodSpec{Name: "p", Containers: []api.ContainerSpec{{Name: "c", Image: "busybox", OCIHook: tc.hook}}}
		if got := Hash(Fields(spec, key)); got != tc.keyed {
			t.Errorf("hook set %v: keyed spec hash %s, want %s (as before OCIHook)", tc.hook != nil, got, tc.keyed)
		}
		if got := Hash(Fields(spec, nil)); got != tc.legacy {
			t.Errorf("hook set %v: legacy spec hash %s, want %s (as before OCIHook)", tc.hook != nil, got, tc.legacy)
		}
	}
}
