package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A pod whose process ignores SIGTERM (a `sleep` as the container's PID 1 has no handler, so
// the signal does nothing): every stop waits its whole grace period, then SIGKILL.
const stubbornPod = `---
apiVersion: v1
kind: Pod
metadata:
  name: %s
spec:
  terminationGracePeriodSeconds: %d
  containers:
  - name: sleep
    image: podlife.cli/busybox:1
    command: ["sleep", "3600"]
`

// `podlife stop` and `podlife rm` of many pods act on them concurrently: n pods whose
// processes ignore SIGTERM stop in about one grace period, not n, whether their supervisor
// stops them (stop, asked through its control socket) or the command itself does once the
// supervisor is gone (rm, each pod adopted for it). Every pod's outcome is reported; a name
// that is no pod fails (exit 1) without stopping the others.
func TestStopAndRemoveManyPodsConcurrently(t *testing.T) {
	const (
		n     = 8
		grace = 6 // seconds: n of them one after another would take n*grace
	)
	dir := cliTestDir(t)
	bin := filepath.Join(dir, "podlife")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	id := os.Getpid()
	bridge := fmt.Sprintf("plrm%d", id%100000)
	subnet := fmt.Sprintf("10.%d.%d.0/24", 90+id%50, id%250)
	network := fmt.Sprintf("plrm-%d", id)
	// Every command gets the network flags: a pod without a manager is released with the
	// caller's network config (issue 18 item 3), and the rm below must leave no rule behind.
	c := cliProc{t: t, bin: bin, common: []string{"--state-dir", filepath.Join(dir, "state"),
		"--network", network, "--bridge", bridge, "--subnet", subnet}}
	var names []string
	var manifest strings.Builder
	for i := range n {
		names = append(names, fmt.Sprintf("rm-many-%d", i))
		fmt.Fprintf(&manifest, stubbornPod, names[i], grace)
	}
	file := filepath.Join(dir, "pods.yaml")
	if err := os.WriteFile(file, []byte(manifest.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, supervisor := c.runDetached(names[0], bridge, syscall.SIGTERM, "-f", file, "--busybox", "podlife.cli/busybox:1")
	t.Cleanup(func() { c.exec(append([]string{"rm", "--grace-period", "0"}, names...)...) })
	for _, name := range names {
		if !strings.Contains(stdout, "pod/"+name+" started") {
			t.Fatalf("run --detach did not start %s:\n%s", name, stdout)
		}
	}
	c.waitPS("every pod running", func(l podList) bool {
		running := 0
		for _, p := range l.Items {
			if p.Status.Phase == "Running" {
				running++
			}
		}
		return running == n
	})
	// Bound: one grace period, plus generous room for a loaded machine, well under the sum.
	bound := time.Duration(grace)*time.Second + 8*time.Second

	// stop of half of them: each waits its grace period, at the same time as the others.
	half := names[:n/2]
	r := c.exec(append([]string{"stop"}, half...)...)
	t.Logf("stop of %d pods (grace %ds each) took %v", len(half), grace, r.took)
	if r.code != 0 {
		t.Fatalf("stop: %v", r)
	}
	for _, name := range half {
		if !strings.Contains(r.stdout, "pod/"+name+" stopped\n") {
			t.Errorf("stop did not report %s: %v", name, r)
		}
	}
	if r.took >= bound {
		t.Errorf("stop of %d pods took %v, want under %v (one after another: %v)", len(half), r.took, bound, time.Duration(len(half)*grace)*time.Second)
	}

	// The supervisor dies: rm acts on the pods itself. rm of all of them and of a name that is
	// no pod: the others are removed (the running half concurrently), the missing one is
	// reported, the exit code says that one failed.
	if err := syscall.Kill(supervisor, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, supervisor)
	r = c.exec(append(append([]string{"rm"}, names...), "rm-many-missing")...)
	t.Logf("rm of %d pods (%d running, grace %ds each) took %v", n, n-len(half), grace, r.took)
	if r.code != 1 || !strings.Contains(r.stderr, `"rm-many-missing"`) {
		t.Errorf("rm with a missing pod: want exit 1 naming it: %v", r)
	}
	for _, name := range names {
		if !strings.Contains(r.stdout, "pod/"+name+" removed\n") {
			t.Errorf("rm did not report %s removed: %v", name, r)
		}
	}
	if r.took >= bound {
		t.Errorf("rm of %d running pods took %v, want under %v (one after another: %v)", n-len(half), r.took, bound, time.Duration((n-len(half))*grace)*time.Second)
	}
	if l := c.ps(); len(l.Items) != 0 {
		t.Errorf("pods left after rm: %+v", l.Items)
	}
	if out, err := exec.Command("iptables-save").Output(); err == nil && strings.Contains(string(out), `"`+network+`"`) {
		t.Errorf("iptables rules of network %s left after rm", network)
	}
}
