package podlife_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
)

// loadDocsPod loads a Kubernetes documentation example from podlife/kube/testdata, with its
// images swapped for the local busybox; a container that relied on its image's server (nginx)
// gets a loop instead.
func loadDocsPod(t *testing.T, file string) podlife.PodSpec {
	t.Helper()
	res, err := kube.LoadFiles(context.Background(), kube.Options{}, filepath.Join("kube", "testdata", file))
	if err != nil {
		t.Fatalf("load %s: %v", file, err)
	}
	spec := res.Pods[0].Spec
	for _, cs := range [][]podlife.ContainerSpec{spec.InitContainers, spec.Containers} {
		for i := range cs {
			cs[i].Image, cs[i].ImagePullPolicy = testImage, ""
			if len(cs[i].Command) == 0 && len(cs[i].Args) == 0 {
				cs[i].Command = []string{"/bin/sh", "-c", loopForever}
			}
		}
	}
	spec.TerminationGracePeriod = ptr(3 * time.Second)
	return spec
}

// The documentation's pod examples run with their documented behaviour.
func TestKubeDocsExamples(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	t.Run("lifecycle hooks", func(t *testing.T) {
		pod, err := h.rt.Run(ctx, loadDocsPod(t, "lifecycle-events.yaml"))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		res, err := execOutput(ctx, pod, "lifecycle-demo-container", []string{"cat", "/usr/share/message"})
		if err != nil || strings.TrimSpace(string(res.Output)) != "Hello from the postStart handler" {
			t.Errorf("postStart message: %q %v", res.Output, err)
		}
	})
	t.Run("shared volume", func(t *testing.T) {
		pod, err := h.rt.Run(ctx, loadDocsPod(t, "two-container-pod.yaml"))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if _, err := pod.WaitFor(ctx, func(s podlife.PodStatus) bool { return s.ContainerStatuses[1].State.Terminated != nil }); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(pod.Sandbox().Dir(), "volumes", "shared-data", "index.html"))
		if strings.TrimSpace(string(b)) != "Hello from the debian container" {
			t.Errorf("shared file: %q", b)
		}
		if st := pod.Status(); st.Phase != podlife.PhaseRunning {
			t.Errorf("phase %s with the nginx container still running, want Running", st.Phase)
		}
	})
	t.Run("security context", func(t *testing.T) {
		pod, err := h.rt.Run(ctx, loadDocsPod(t, "security-context.yaml"))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		// The page's outputs: id, a file's owner in the fsGroup volume, and no_new_privs.
		for cmd, want := range map[string]string{
			"id": "uid=1000 gid=3000 groups=2000,3000,4000",
			"cd /data/demo && echo hello > testfile && stat -c '%u %g' testfile": "1000 2000",
			"stat -c '%g' /data/demo":                            "2000",
			"grep NoNewPrivs /proc/1/status | tr -d '[:space:]'": "NoNewPrivs:1",
		} {
			res, err := execOutput(ctx, pod, "sec-ctx-demo", []string{"sh", "-c", cmd})
			if got := strings.TrimSpace(string(res.Output)); err != nil || got != want {
				t.Errorf("%s: %q (%v), want %q", cmd, got, err, want)
			}
		}
	})
	t.Run("job with a sidecar", func(t *testing.T) {
		pod, err := h.rt.Run(ctx, loadDocsPod(t, "job-sidecar.yaml"))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		st, err := pod.Wait(ctx)
		if err != nil || st.Phase != podlife.PhaseSucceeded {
			t.Fatalf("phase %s (%v), want Succeeded with the sidecar stopped", st.Phase, err)
		}
		if err := pod.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		if s := pod.Status().InitContainerStatuses[0]; s.State.Terminated == nil {
			t.Errorf("sidecar %+v, want stopped", s.State)
		}
	})
}
