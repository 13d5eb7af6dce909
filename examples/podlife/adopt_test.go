package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const adoptManifest = `apiVersion: v1
kind: Pod
metadata:
  name: cli-adopt
spec:
  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: podlife.cli/busybox:1
    command: ["/bin/sh", "-c", %q]
`

// A detached supervisor is SIGKILLed; run -f of the same manifest adopts the pod (its container
// not restarted, ps names the new supervisor); a changed manifest is refused naming what
// differs, and --replace runs it anew.
func TestRunAdoptsPodOfKilledSupervisor(t *testing.T) {
	dir := cliTestDir(t)
	write := func(cmd string) string {
		path := filepath.Join(dir, "pod.yaml")
		if err := os.WriteFile(path, []byte(fmt.Sprintf(adoptManifest, cmd)), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	bin := filepath.Join(dir, "podlife")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	n := os.Getpid() % 100000
	bridge, network := fmt.Sprintf("pladopt%d", n), fmt.Sprintf("pladopt-%d", n)
	subnet := fmt.Sprintf("10.%d.%d.0/24", 150+os.Getpid()%50, os.Getpid()%250)
	c := cliProc{t: t, bin: bin, common: []string{"--state-dir", filepath.Join(dir, "state")}}
	netArgs := []string{"--busybox", "podlife.cli/busybox:1", "--network", network, "--bridge", bridge, "--subnet", subnet}
	const loop = "trap 'exit 0' TERM; while :; do sleep 0.1; done"
	manifest := write(loop)

	_, first := c.runDetached("cli-adopt", bridge, syscall.SIGKILL, append([]string{"-f", manifest}, netArgs...)...)
	l := c.waitPS("the container running", func(l podList) bool {
		return len(l.Items) == 1 && l.Items[0].Status.ContainerStatuses[0].State.Running != nil
	})
	id := l.Items[0].Status.ContainerStatuses[0].ContainerID
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, first)
	c.waitPS("no manager", func(l podList) bool {
		return len(l.Items) == 1 && l.Items[0].Metadata.Annotations["podlife.io/manager-pid"] == "0"
	})
	if out, _, _ := c.run("ps"); !strings.Contains(out, "none") {
		t.Errorf("ps of an unmanaged pod does not say its manager is none:\n%s", out)
	}

	// The same manifest: adopted.
	_, second := c.runDetached("cli-adopt", bridge, syscall.SIGTERM, append([]string{"-f", manifest}, netArgs...)...)
	l = c.waitPS("managed by the new supervisor", func(l podList) bool {
		return len(l.Items) == 1 && l.Items[0].Metadata.Annotations["podlife.io/manager-pid"] == fmt.Sprint(second)
	})
	if cs := l.Items[0].Status.ContainerStatuses[0]; cs.ContainerID != id || cs.RestartCount != 0 || cs.State.Running == nil {
		t.Errorf("after adoption: %+v, want %s running, not restarted", cs, id)
	}
	if out, _, _ := c.run("ps"); !strings.Contains(out, fmt.Sprint(second)) {
		t.Errorf("ps does not name the manager %d:\n%s", second, out)
	}

	// A live manager: refused, naming it.
	if out, errOut, code := c.run(append([]string{"run", "--detach", "-f", manifest}, netArgs...)...); code == 0 ||
		!strings.Contains(errOut, fmt.Sprintf("managed by pid %d", second)) {
		t.Errorf("run of a managed pod: exit %d, %q %q; want a failure naming pid %d", code, out, errOut, second)
	}
	// A changed manifest: refused, naming the field.
	changed := write("echo changed; " + loop)
	if out, errOut, code := c.run(append([]string{"run", "--detach", "-f", changed}, netArgs...)...); code == 0 ||
		!strings.Contains(errOut, "containers[app].command") || !strings.Contains(errOut, "--replace") {
		t.Errorf("run of a changed manifest: exit %d, %q %q; want a failure naming containers[app].command and --replace", code, out, errOut)
	}
	// --replace: removed (through its manager) and run anew.
	_, third := c.runDetached("cli-adopt", bridge, syscall.SIGTERM, append([]string{"--replace", "-f", changed}, netArgs...)...)
	l = c.waitPS("the new pod running", func(l podList) bool {
		return len(l.Items) == 1 && l.Items[0].Metadata.Annotations["podlife.io/manager-pid"] == fmt.Sprint(third) &&
			l.Items[0].Status.ContainerStatuses[0].State.Running != nil
	})
	if cs := l.Items[0].Status.ContainerStatuses[0]; cs.ContainerID == id {
		t.Errorf("--replace kept the container %s", id)
	}
	waitGone(t, second) // its pod removed, the supervisor ends
}
