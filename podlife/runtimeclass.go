package podlife

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/containerd/containerd/api/types/runc/options"
	"github.com/containerd/containerd/v2/core/containers"
	"github.com/containerd/containerd/v2/pkg/oci"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife/internal/ctrd"
)

// runtimeClassCrun is the built-in runtime class that runs a pod's containers with crun (the
// Debian package crun) under containerd's runc shim, unless Config.RuntimeClasses defines a
// class of that name.
const runtimeClassCrun = "crun"

// RuntimeClass is a named way to run a pod's containers (Kubernetes' RuntimeClass, whose
// handler the kubelet maps to a containerd runtime): a containerd runtime and, for the runc
// shim, the OCI runtime binary it drives. A pod picks one with PodSpec.RuntimeClassName; all
// the pod's containers (and its pause, with ShareProcessNamespace) run with it, in the pod's
// one shim.
type RuntimeClass struct {
	// Runtime is the containerd runtime (shim); empty means Config.RuntimeName.
	Runtime string `json:"runtime,omitempty"`
	// BinaryName is the OCI runtime binary the runc shim runs instead of runc (the runc
	// options' BinaryName: "crun", "/usr/bin/crun"); a name without a slash is looked up in
	// the shim's PATH (containerd's). Empty means runc.
	BinaryName string `json:"binaryName,omitempty"`
	// Root is the runtime's state root directory (the runc options' Root); empty means the
	// shim's default, /run/containerd/runc (the shim passes it as --root, whatever the binary).
	Root string `json:"root,omitempty"`
	// OCIVersion, if set, is the ociVersion written in the containers' config.json instead of
	// containerd's (a runtime-spec 1.2 version): runtimes that refuse newer versions need it
	// (crun before 1.9 accepts only 1.0.x). The built-in crun class sets it to the version
	// `crun --version` reports ("spec: 1.0.0").
	OCIVersion string `json:"ociVersion,omitempty"`
}

// withDefaults is the class with its defaults: Runtime the Config's runtime.
func (rc RuntimeClass) withDefaults(runtimeName string) RuntimeClass {
	if rc.Runtime == "" {
		rc.Runtime = runtimeName
	}
	return rc
}

// ctrRuntime is a resolved runtime class: the containerd runtime name and its options (nil
// for the runtime's defaults).
type ctrRuntime struct {
	name       string
	options    *options.Options
	ociVersion string // the spec's ociVersion; "" keeps containerd's
}

// runtimeFor resolves a pod's runtimeClassName: "" is the default runtime
// (Config.RuntimeName), a class of Config.RuntimeClasses, or the built-in crun class when crun
// is in PATH. An unknown class is refused with a *ValidationError at spec.runtimeClassName.
// c has its defaults filled in; versions caches crun's spec version (nil: none).
func (c *Config) runtimeFor(s *PodSpec, versions *specVersions) (ctrRuntime, error) {
	name := s.RuntimeClassName
	if name == "" {
		return ctrRuntime{name: c.RuntimeName}, nil
	}
	rc, ok := c.RuntimeClasses[name]
	if !ok && name == runtimeClassCrun {
		if bin, err := exec.LookPath("crun"); err == nil {
			if abs, err := filepath.Abs(bin); err == nil {
				rc, ok = RuntimeClass{Runtime: c.RuntimeName, BinaryName: abs, OCIVersion: versions.crun(abs)}, true
			}
		}
	}
	if !ok {
		detail := "no such runtime class: classes are those of Config.RuntimeClasses, and \"crun\" when crun is installed"
		if names := slices.Sorted(maps.Keys(c.RuntimeClasses)); len(names) > 0 {
			detail += " (configured: " + strings.Join(names, ", ") + ")"
		}
		errs := field.ErrorList{&field.Error{Type: field.ErrorTypeNotFound, Field: "spec.runtimeClassName", BadValue: name, Detail: detail}}
		return ctrRuntime{}, &ValidationError{Pod: s.Name, Errs: errs}
	}
	out := ctrRuntime{name: rc.Runtime, ociVersion: rc.OCIVersion} // Runtime defaulted by Config.withDefaults
	if rc.BinaryName != "" || rc.Root != "" {
		out.options = &options.Options{BinaryName: rc.BinaryName, Root: rc.Root}
	}
	return out, nil
}

// validateRuntimeClasses checks Config.RuntimeClasses: names are DNS-1123 subdomains (as
// Kubernetes' RuntimeClass names), Root an absolute path.
func validateRuntimeClasses(classes map[string]RuntimeClass) []error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(classes)) {
		rc := classes[name]
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			errs = append(errs, fmt.Errorf("config.runtimeClasses[%s]: %s", name, msg))
		}
		if rc.Root != "" && !filepath.IsAbs(rc.Root) {
			errs = append(errs, fmt.Errorf("config.runtimeClasses[%s].root: %q must be an absolute path", name, rc.Root))
		}
	}
	return errs
}

// runtime is the containerd runtime and its options (nil, not a nil pointer, without any).
func (rt ctrRuntime) runtime() ctrd.Runtime {
	if rt.options == nil {
		return ctrd.Runtime{Name: rt.name}
	}
	return ctrd.Runtime{Name: rt.name, Options: rt.options}
}

// specOpts are the spec options of the runtime class, applied after all others.
func (rt ctrRuntime) specOpts() []oci.SpecOpts {
	if rt.ociVersion == "" {
		return nil
	}
	return []oci.SpecOpts{func(_ context.Context, _ oci.Client, _ *containers.Container, s *oci.Spec) error {
		s.Version = rt.ociVersion
		return nil
	}}
}

// crunSpecVersion is the runtime-spec version crun says it implements ("spec: 1.0.0" in
// `crun --version`), "" if it says none.
func crunSpecVersion(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "spec:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// specVersions caches the spec versions crun binaries report (a Runtime's), so that crun runs
// once per binary, not at every pod start. A binary replaced in place (another modification
// time) is asked again.
type specVersions struct {
	mu sync.Mutex
	m  map[string]string // by path and modification time
}

func (v *specVersions) crun(bin string) string {
	if v == nil {
		return crunSpecVersion(bin)
	}
	key := bin
	if fi, err := os.Stat(bin); err == nil {
		key += "@" + fi.ModTime().String()
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.m[key]; ok {
		return s
	}
	s := crunSpecVersion(bin)
	if v.m == nil {
		v.m = map[string]string{}
	}
	v.m[key] = s
	return s
}
