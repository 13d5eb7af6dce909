package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/podlife/podlife/podlife"
)

// runtimeClassFlags are run's --runtime-class NAME=BINARY definitions: runtime classes that
// pods name in spec.runtimeClassName, each the runc shim running BINARY (Config.RuntimeClasses).
// The built-in "crun" class needs none.
type runtimeClassFlags struct{ defs files }

func addRuntimeClassFlags(fs *flag.FlagSet) *runtimeClassFlags {
	r := &runtimeClassFlags{}
	fs.Var(&r.defs, "runtime-class", `runtime class NAME=BINARY: pods with runtimeClassName NAME run with the OCI runtime BINARY under the runc shim (repeatable; "crun" is built in when crun is installed)`)
	return r
}

// classes parses the definitions.
func (r *runtimeClassFlags) classes() (map[string]podlife.RuntimeClass, error) {
	if len(r.defs) == 0 {
		return nil, nil
	}
	out := map[string]podlife.RuntimeClass{}
	for _, d := range r.defs {
		name, bin, ok := strings.Cut(d, "=")
		if !ok || name == "" || bin == "" {
			return nil, fmt.Errorf("--runtime-class %q: want NAME=BINARY", d)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("--runtime-class %q: class %s defined twice", d, name)
		}
		out[name] = podlife.RuntimeClass{BinaryName: bin}
	}
	return out, nil
}
