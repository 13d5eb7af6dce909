package runtimeclass

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife/internal/api"
)

const defaultRuntime = "io.containerd.runc.v2"

// resolver resolves with the classes, defaulted as Config.withDefaults does.
type resolver map[string]Class

func (r resolver) runtimeFor(s *api.PodSpec, v *Versions) (Handler, error) {
	classes := map[string]Class{}
	for n, c := range r {
		classes[n] = WithDefaults(c, defaultRuntime)
	}
	return Resolve(classes, defaultRuntime, s, v)
}

// Resolve: the default runtime without a class; a configured class with its runtime and
// runc options; the built-in crun (when installed) with crun's absolute path and spec version;
// a configured "crun" replacing it; an unknown class refused at spec.runtimeClassName, naming
// the configured classes.
func TestRuntimeFor(t *testing.T) {
	cfg := resolver{
		"fast":  {BinaryName: "/opt/bin/fastrt", Root: "/run/fastrt"},
		"other": {Runtime: "io.containerd.other.v1"},
	}
	spec := func(class string) *api.PodSpec { return &api.PodSpec{Name: "p", RuntimeClassName: class} }
	var versions Versions

	rt, err := cfg.runtimeFor(spec(""), &versions)
	if err != nil || rt.Name != defaultRuntime || rt.Options != nil || rt.OCIVersion != "" {
		t.Errorf("no class: %+v, %v", rt, err)
	}
	rt, err = cfg.runtimeFor(spec("fast"), &versions)
	if err != nil || rt.Name != defaultRuntime || rt.Options == nil || rt.Options.BinaryName != "/opt/bin/fastrt" || rt.Options.Root != "/run/fastrt" {
		t.Errorf("fast: %+v, %v", rt, err)
	}
	rt, err = cfg.runtimeFor(spec("other"), &versions)
	if err != nil || rt.Name != "io.containerd.other.v1" || rt.Options != nil {
		t.Errorf("other: %+v, %v (a class without runc options passes none)", rt, err)
	}
	if len(rt.SpecOpts()) != 0 {
		t.Error("a class without OCIVersion changes the spec")
	}

	_, err = cfg.runtimeFor(spec("gvisor"), &versions)
	var verr *api.ValidationError
	if !errors.As(err, &verr) || len(verr.Errs) != 1 ||
		verr.Errs[0].Type != field.ErrorTypeNotFound || verr.Errs[0].Field != "spec.runtimeClassName" {
		t.Fatalf("unknown class: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `spec.runtimeClassName: Not found: "gvisor"`) || !strings.Contains(msg, "configured: fast, other") {
		t.Errorf("unknown class: %q", msg)
	}

	if bin, err := exec.LookPath("crun"); err == nil {
		rt, err := cfg.runtimeFor(spec(Crun), &versions)
		if err != nil || rt.Name != defaultRuntime || rt.Options == nil || rt.Options.BinaryName != bin || rt.OCIVersion == "" || len(rt.SpecOpts()) != 1 {
			t.Errorf("built-in crun (%s): %+v, %v", bin, rt, err)
		}
		if again, _ := cfg.runtimeFor(spec(Crun), &versions); again.OCIVersion != rt.OCIVersion || len(versions.m) != 1 {
			t.Errorf("crun's spec version is not cached: %q, cache %v", again.OCIVersion, versions.m)
		}
	} else if _, err := cfg.runtimeFor(spec(Crun), &versions); err == nil {
		t.Error("built-in crun resolved without crun installed")
	}
	own := resolver{Crun: {BinaryName: "/opt/crun", OCIVersion: "1.0.2"}}
	rt, err = own.runtimeFor(spec(Crun), &versions)
	if err != nil || rt.Options == nil || rt.Options.BinaryName != "/opt/crun" || rt.OCIVersion != "1.0.2" {
		t.Errorf("configured crun: %+v, %v", rt, err)
	}
}
