package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// By default the agent enforces the baseline Pod Security Standard, as an API server's
// admission would: a manifest with a hostPath volume, and one whose container adds
// SYS_ADMIN, do not run; their status says why in the API server's words, naming the field;
// a manifest that meets baseline runs beside them.
func TestAgentPodSecurityBaseline(t *testing.T) {
	e := newAgentEnv(t)
	e.podSecurity = ""               // the agent's default
	e.write("a.yaml", "alpha", "v1") // testManifest: a hostPath volume
	sysAdmin := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: sysadmin}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: main
    image: %[1]s
    command: ["sleep", "3600"]
    securityContext: {capabilities: {add: [SYS_ADMIN]}}
---
apiVersion: v1
kind: Pod
metadata: {name: fine}
spec:
  terminationGracePeriodSeconds: 0
  containers: [{name: main, image: %[1]s, command: ["sleep", "3600"]}]
`, testImage)
	if err := os.WriteFile(filepath.Join(e.manifests, "s.yaml"), []byte(sysAdmin), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := e.start("--stop-pods-on-exit")
	for name, want := range map[string][]string{
		"alpha":    {`violates PodSecurity "baseline:latest": hostPath volumes (volume "out")`, "spec.volumes[0].hostPath"},
		"sysadmin": {`violates PodSecurity "baseline:latest": non-default capabilities (container "main" must not include "SYS_ADMIN" in securityContext.capabilities.add)`, "spec.containers[0].securityContext.capabilities.add"},
	} {
		e.waitFor(name+" refused by baseline", func() bool {
			r, ok := e.pod(name)
			return ok && r.State == stateFailed && strings.Contains(r.Error, want[0]) && strings.Contains(r.Error, want[1])
		})
	}
	e.waitFor("fine running", func() bool { r, ok := e.pod("fine"); return running(r, ok, "", stateManaged) })
	if l := e.lines("alpha"); len(l) != 0 {
		t.Errorf("alpha's container ran: it wrote %q", l)
	}
	if err := agent.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := agent.Wait(); err != nil {
		t.Fatalf("agent after SIGTERM: %v\n%s", err, e.agentLog(e.n))
	}
	e.checkPodGone("fine-edge")
}
