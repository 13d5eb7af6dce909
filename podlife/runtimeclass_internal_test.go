package podlife

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// runtimeFor: the default runtime without a class; a configured class with its runtime and
// runc options; the built-in crun (when installed) with crun's absolute path and spec version;
// a configured "crun" replacing it; an unknown class refused at spec.runtimeClassName, naming
// the configured classes.
func TestRuntimeFor(t *testing.T) {
	cfg := Config{RuntimeClasses: map[string]RuntimeClass{
		"fast":  {BinaryName: "/opt/bin/fastrt", Root: "/run/fastrt"},
		"other": {Runtime: "io.containerd.other.v1"},
	}}.withDefaults()
	spec := func(class string) *PodSpec { return &PodSpec{Name: "p", RuntimeClassName: class} }
	var versions specVersions

	rt, err := cfg.runtimeFor(spec(""), &versions)
	if err != nil || rt.name != defaultRuntime || rt.options != nil || rt.ociVersion != "" {
		t.Errorf("no class: %+v, %v", rt, err)
	}
	rt, err = cfg.runtimeFor(spec("fast"), &versions)
	if err != nil || rt.name != defaultRuntime || rt.options == nil || rt.options.BinaryName != "/opt/bin/fastrt" || rt.options.Root != "/run/fastrt" {
		t.Errorf("fast: %+v, %v", rt, err)
	}
	rt, err = cfg.runtimeFor(spec("other"), &versions)
	if err != nil || rt.name != "io.containerd.other.v1" || rt.options != nil {
		t.Errorf("other: %+v, %v (a class without runc options passes none)", rt, err)
	}
	if len(rt.specOpts()) != 0 {
		t.Error("a class without OCIVersion changes the spec")
	}

	_, err = cfg.runtimeFor(spec("gvisor"), &versions)
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Errs) != 1 ||
		verr.Errs[0].Type != field.ErrorTypeNotFound || verr.Errs[0].Field != "spec.runtimeClassName" {
		t.Fatalf("unknown class: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `spec.runtimeClassName: Not found: "gvisor"`) || !strings.Contains(msg, "configured: fast, other") {
		t.Errorf("unknown class: %q", msg)
	}

	if bin, err := exec.LookPath("crun"); err == nil {
		rt, err := cfg.runtimeFor(spec(runtimeClassCrun), &versions)
		if err != nil || rt.name != defaultRuntime || rt.options == nil || rt.options.BinaryName != bin || rt.ociVersion == "" || len(rt.specOpts()) != 1 {
			t.Errorf("built-in crun (%s): %+v, %v", bin, rt, err)
		}
		if again, _ := cfg.runtimeFor(spec(runtimeClassCrun), &versions); again.ociVersion != rt.ociVersion || len(versions.m) != 1 {
			t.Errorf("crun's spec version is not cached: %q, cache %v", again.ociVersion, versions.m)
		}
	} else if _, err := cfg.runtimeFor(spec(runtimeClassCrun), &versions); err == nil {
		t.Error("built-in crun resolved without crun installed")
	}
	own := Config{RuntimeClasses: map[string]RuntimeClass{runtimeClassCrun: {BinaryName: "/opt/crun", OCIVersion: "1.0.2"}}}.withDefaults()
	rt, err = own.runtimeFor(spec(runtimeClassCrun), &versions)
	if err != nil || rt.options == nil || rt.options.BinaryName != "/opt/crun" || rt.ociVersion != "1.0.2" {
		t.Errorf("configured crun: %+v, %v", rt, err)
	}
}

// Config.Validate checks the classes' names and roots; PodSpec.Validate the class name's form.
func TestRuntimeClassValidation(t *testing.T) {
	err := Config{RuntimeClasses: map[string]RuntimeClass{"Bad_Name": {}, "ok": {Root: "run/x"}}}.Validate()
	if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), "config.runtimeClasses[Bad_Name]") ||
		!strings.Contains(err.Error(), `config.runtimeClasses[ok].root: "run/x" must be an absolute path`) {
		t.Errorf("Config.Validate: %v", err)
	}
	s := PodSpec{Name: "p", RuntimeClassName: "Not_Valid", Containers: []ContainerSpec{{Name: "c", Image: "busybox"}}}
	err = s.Validate()
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Errs) != 1 || verr.Errs[0].Field != "spec.runtimeClassName" || verr.Errs[0].Type != field.ErrorTypeInvalid {
		t.Errorf("PodSpec.Validate: %v", err)
	}
}
