package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const topManifest = `apiVersion: v1
kind: Pod
metadata:
  name: cli-top
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: burn
    image: podlife.cli/busybox:1
    command: ["/bin/sh", "-c", "while :; do :; done"]
  - name: idle
    image: podlife.cli/busybox:1
    command: ["/bin/sh", "-c", "trap 'exit 0' TERM; while :; do sleep 0.1; done"]
`

// top and ps -o wide on a pod a background supervisor manages, from other processes: the
// container that burns CPU shows hundreds of millicores, the idle one few, in kubectl top's
// columns; ps -o wide adds the pod's IP, CPU time and working set.
func TestTopDetachedPod(t *testing.T) {
	dir := cliTestDir(t)
	manifest := filepath.Join(dir, "pod.yaml")
	if err := os.WriteFile(manifest, []byte(topManifest), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "podlife")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	state := filepath.Join(dir, "state")
	bridge := fmt.Sprintf("pltop%d", os.Getpid()%100000)
	subnet := fmt.Sprintf("10.%d.%d.0/24", 140+os.Getpid()%50, os.Getpid()%250)
	network := fmt.Sprintf("pltop-%d", os.Getpid())
	c := cliProc{t: t, bin: bin, common: []string{"--state-dir", state}}
	c.runDetached("cli-top", bridge, syscall.SIGTERM, "-f", manifest, "--busybox", "podlife.cli/busybox:1",
		"--network", network, "--bridge", bridge, "--subnet", subnet)
	c.waitPS("both containers running", func(l podList) bool {
		if len(l.Items) != 1 {
			return false
		}
		cs := l.Items[0].Status.ContainerStatuses
		return len(cs) == 2 && cs[0].State.Running != nil && cs[1].State.Running != nil
	})

	out, e, code := c.run("top", "--containers", "--window", "2s", "cli-top")
	if code != 0 {
		t.Fatalf("top --containers: exit %d, %s", code, e)
	}
	t.Logf("top --containers:\n%s", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !regexp.MustCompile(`^POD\s+NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)$`).MatchString(lines[0]) {
		t.Fatalf("top --containers:\n%s", out)
	}
	row := regexp.MustCompile(`^cli-top\s+(\w+)\s+(\d+)m\s+(\d+)Mi$`)
	cpu := map[string]int{}
	for _, l := range lines[1:] {
		m := row.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("top --containers row %q", l)
		}
		cpu[m[1]], _ = strconv.Atoi(m[2])
	}
	// One core wanted on a shared machine: a tenth of it required.
	if cpu["burn"] < 100 || cpu["burn"] > 1100 || cpu["idle"] > cpu["burn"]/4 {
		t.Errorf("top --containers: burn %dm, idle %dm\n%s", cpu["burn"], cpu["idle"], out)
	}

	out, e, code = c.run("top")
	if code != 0 || !regexp.MustCompile(`(?m)^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\ncli-top\s+\d+m\s+\d+Mi$`).MatchString(strings.TrimSpace(out)) {
		t.Errorf("top: exit %d\n%s%s", code, out, e)
	}
	if _, e, code := c.run("top", "no-such-pod"); code == 0 || !strings.Contains(e, "not found") {
		t.Errorf("top of a pod that does not exist: exit %d, %q", code, e)
	}
	out, e, code = c.run("ps", "-o", "wide")
	t.Logf("ps -o wide:\n%s", out)
	if code != 0 || !regexp.MustCompile(`(?m)^NAME .* IP\s+CPU-TIME\s+MEMORY\(bytes\)\ncli-top .* 10\.\d+\.\d+\.\d+\s+[0-9.]+m?s\s+\d+Mi$`).MatchString(strings.TrimSpace(out)) {
		t.Errorf("ps -o wide: exit %d\n%s%s", code, out, e)
	}
}
