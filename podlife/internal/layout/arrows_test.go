package layout_test

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/podlife/podlife/"

// The repository's package arrows point one way (see the README's Layout table and each
// package's comment): hook, probe, cni and the shared internal packages never import package
// podlife; podlife's internal packages never import podlife; package podlife never imports the
// packages that build on it. Checked on the transitive imports (go list -deps) of the non-test
// code. The pod worker (podlife/internal/worker) never imports adoption, the startup GC, the
// control socket or the daemon: the Runtime gives it what it needs (worker.Host).
func TestPackageArrows(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command: ", err)
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, mod+"...").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	deps := map[string]map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		set := map[string]bool{}
		for _, d := range fields[1:] {
			set[strings.TrimPrefix(d, mod)] = true
		}
		deps[strings.TrimPrefix(fields[0], mod)] = set
	}
	rules := []struct {
		pkg       string // a package, or a prefix ending in "/"
		forbidden []string
	}{
		{"hook", []string{"podlife", "probe", "cni"}},
		{"probe", []string{"podlife", "cni"}},
		{"cni", []string{"podlife", "hook", "probe"}},
		{"podlife/internal/", []string{"podlife"}},
		{"podlife/internal/api", []string{"podlife/internal/ctrd", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/ocibuild", []string{"podlife/internal/ctrd", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/specfp", []string{"podlife/internal/ctrd", "podlife/daemon", "cni"}},
		{"podlife/internal/eventbus", []string{"podlife/internal/ctrd", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/usage", []string{"podlife/daemon", "cni"}},
		{"podlife/internal/gc", []string{"podlife/daemon"}},
		{"podlife/internal/control", []string{"podlife/internal/ctrd", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/logs", []string{"podlife/internal/ctrd", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/sandbox", []string{"podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/runtimeclass", []string{"podlife/internal/poddir", "podlife/internal/eventbus", "podlife/internal/specfp", "podlife/daemon", "cni"}},
		{"podlife/internal/admission", []string{"podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/hostcheck", []string{"podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/found", []string{"podlife/internal/tasks", "podlife/internal/eventbus", "podlife/daemon", "cni"}},
		{"podlife/internal/worker", []string{"podlife/internal/gc", "podlife/internal/control", "podlife/daemon", "podlife/internal/adopt", "podlife/internal/warmpool", "podlife/internal/remote", "podlife/internal/podtable", "podlife/internal/endpoint"}},
		{"podlife/internal/adopt", []string{"podlife/internal/gc", "podlife/internal/warmpool", "podlife/internal/remote", "podlife/internal/podtable", "podlife/daemon"}},
		{"podlife/internal/remote", []string{"podlife/internal/adopt", "podlife/internal/gc", "podlife/internal/warmpool", "podlife/internal/podtable", "podlife/daemon"}},
		{"podlife/internal/podtable", []string{"podlife/internal/worker", "podlife/internal/adopt", "podlife/internal/warmpool", "podlife/internal/remote", "podlife/internal/control", "podlife/internal/gc", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/daemon", "cni"}},
		{"podlife/internal/hostlookup", []string{"podlife/internal/worker", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/endpoint", []string{"podlife/internal/worker", "podlife/internal/adopt", "podlife/internal/control", "podlife/internal/tasks", "podlife/internal/poddir", "cni"}},
		{"podlife/internal/warmpool", []string{"podlife/internal/gc", "podlife/internal/control", "podlife/daemon", "podlife/internal/adopt"}},
		{"podlife/internal/worker/status", []string{"podlife/internal/worker", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/worker/probing", []string{"podlife/internal/worker", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/worker/startorder", []string{"podlife/internal/worker", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/worker/containerspec", []string{"podlife/internal/worker", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon"}},
		{"podlife/internal/worker/volmount", []string{"podlife/internal/worker", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/worker/podstart", []string{"podlife/internal/worker", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/worker/lifecycle", []string{"podlife/internal/worker", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/worker/imagepull", []string{"podlife/internal/worker", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/worker/creating", []string{"podlife/internal/worker", "podlife/internal/gc", "podlife/internal/control", "podlife/daemon", "podlife/internal/adopt", "podlife/internal/eventbus"}},
		{"podlife/internal/worker/attempt", []string{"podlife/internal/worker", "podlife/internal/gc", "podlife/internal/control", "podlife/daemon", "podlife/internal/adopt", "podlife/internal/poddir", "podlife/internal/eventbus", "cni"}},
		{"podlife/internal/eviction", []string{"podlife/internal/worker", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/worker/record", []string{"podlife/internal/worker", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/daemon"}},
		{"podlife/internal/worker/observe", []string{"podlife/internal/worker", "podlife/internal/gc", "podlife/internal/control", "podlife/daemon", "podlife/internal/adopt"}},
		{"podlife/internal/worker/podupdate", []string{"podlife/internal/worker", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/worker/restarting", []string{"podlife/internal/worker", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/worker/resizing", []string{"podlife/internal/worker", "podlife/internal/gc", "podlife/internal/control", "podlife/daemon", "podlife/internal/adopt", "podlife/internal/poddir", "cni"}},
		{"podlife/internal/worker/ephemeral", []string{"podlife/internal/worker", "podlife/internal/gc", "podlife/internal/control", "podlife/daemon", "podlife/internal/adopt", "podlife/internal/poddir", "cni"}},
		{"podlife/internal/worker/teardown", []string{"podlife/internal/worker", "podlife/internal/gc", "podlife/internal/control", "podlife/daemon", "podlife/internal/adopt", "podlife/internal/poddir", "podlife/internal/eventbus", "cni"}},
		{"podlife/internal/worker/podend", []string{"podlife/internal/worker", "podlife/internal/gc", "podlife/internal/control", "podlife/daemon", "podlife/internal/adopt", "podlife/internal/poddir", "podlife/internal/eventbus", "cni"}},
		{"podlife/internal/worker/exitwatch", []string{"podlife/internal/worker", "podlife/internal/gc", "podlife/internal/control", "podlife/daemon", "podlife/internal/adopt", "podlife/internal/poddir", "podlife/internal/eventbus", "cni"}},
		{"podlife/internal/worker/podsandbox", []string{"podlife/internal/worker", "podlife/internal/gc", "podlife/internal/control", "podlife/daemon", "podlife/internal/adopt"}},
		{"podlife/internal/worker/warmmember", []string{"podlife/internal/worker", "podlife/internal/warmpool", "podlife/internal/gc", "podlife/internal/control", "podlife/daemon", "podlife/internal/adopt"}},
		{"podlife/internal/worker/ownerloop", []string{"podlife/internal/worker", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/worker/host", []string{"podlife/internal/worker", "podlife/internal/gc", "podlife/internal/control", "podlife/daemon", "podlife/internal/adopt", "podlife/internal/warmpool"}},
		{"podlife/internal/worker/goroutines", []string{"podlife/internal/worker", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/daemon", "cni"}},
		{"podlife/internal/conn", []string{"podlife/internal/worker", "podlife/internal/worker/attempt", "podlife/internal/ctrd", "podlife/internal/tasks", "podlife/internal/poddir", "podlife/internal/eventbus", "podlife/daemon", "cni"}},
		{"podlife/internal/tasks", []string{"podlife/internal/poddir", "podlife/internal/eventbus", "podlife/internal/specfp", "podlife/daemon", "cni"}},
		{"podlife/daemon", []string{"podlife"}},
		{"podlife/containerlogger", []string{"podlife"}},
		{"podlife/startpolicy", []string{"podlife"}},
		{"podlife/conditions", []string{"podlife", "podlife/internal/worker"}},
		{"podlife/restartrule", []string{"podlife", "podlife/internal/worker"}},
		{"podlife/podsecurity", []string{"podlife", "podlife/internal/worker"}},
		{"internal/clock", []string{"podlife"}},
		{"internal/crilog", []string{"podlife"}},
		{"internal/failpoint", []string{"podlife"}},
		// The gate program links only what its logic needs: nothing of podlife, containerd or CNI.
		{"internal/execgate", []string{"podlife", "podlife/internal/ctrd", "podlife/internal/worker", "cni"}},
		{"internal/httpget", []string{"podlife", "hook", "probe"}},
		{"internal/logdriver", []string{"podlife"}},
		{"internal/procutil", []string{"podlife"}},
		{"internal/restart", []string{"podlife"}},
		{"internal/sandboxns", []string{"podlife"}},
		{"podlife/kube/internal/report", []string{"podlife", "podlife/kube/internal/fields", "podlife/kube/internal/decode", "podlife/kube/internal/apicheck", "podlife/kube/internal/expand", "podlife/kube/internal/env"}},
		{"podlife/kube/internal/fields", []string{"podlife", "podlife/kube/internal/decode", "podlife/kube/internal/apicheck", "podlife/kube/internal/expand", "podlife/kube/internal/env"}},
		{"podlife/kube/internal/decode", []string{"podlife", "podlife/kube/internal/fields", "podlife/kube/internal/apicheck", "podlife/kube/internal/expand", "podlife/kube/internal/env"}},
		{"podlife/kube/internal/apicheck", []string{"podlife", "podlife/kube/internal/fields", "podlife/kube/internal/decode", "podlife/kube/internal/expand", "podlife/kube/internal/env"}},
		{"podlife/kube/internal/expand", []string{"podlife", "podlife/kube/internal/fields", "podlife/kube/internal/decode", "podlife/kube/internal/apicheck", "podlife/kube/internal/env"}},
		{"podlife/kube/internal/env", []string{"podlife/kube/internal/fields", "podlife/kube/internal/decode", "podlife/kube/internal/apicheck"}},
		{"internal/bench/measure", []string{"internal/bench/floor", "internal/bench/probes", "internal/bench/cri", "internal/bench/scale", "internal/bench/breakdown"}},
		{"internal/bench/floor", []string{"internal/bench/probes", "internal/bench/cri", "internal/bench/scale", "internal/bench/breakdown"}},
		{"internal/bench/probes", []string{"internal/bench/floor", "internal/bench/cri", "internal/bench/scale", "internal/bench/breakdown"}},
		{"internal/bench/cri", []string{"internal/bench/floor", "internal/bench/probes", "internal/bench/scale", "internal/bench/breakdown"}},
		{"internal/bench/scale", []string{"internal/bench/floor", "internal/bench/probes", "internal/bench/cri", "internal/bench/breakdown"}},
		{"internal/bench/breakdown", []string{"internal/bench/floor", "internal/bench/probes", "internal/bench/cri", "internal/bench/scale"}},
		{"podlife", []string{"podlife/kube", "podlife/podlifetest", "podlife/containerlogger", "internal/kubectl", "internal/podwatch"}},
	}
	for _, r := range rules {
		matched := false
		for pkg, set := range deps {
			if pkg != r.pkg && !(strings.HasSuffix(r.pkg, "/") && strings.HasPrefix(pkg, r.pkg)) {
				continue
			}
			matched = true
			for _, f := range r.forbidden {
				if set[f] {
					t.Errorf("%s imports %s (directly or not): the arrow points the other way", pkg, f)
				}
			}
		}
		if !matched {
			t.Errorf("no package %s in go list's output: update the rule", r.pkg)
		}
	}
}
