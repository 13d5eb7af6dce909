package podlife_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
)

// A runc failure half-way (the second container's binary does not exist) fails Run with the
// container and step named, and removes everything, including the container that had started:
// with the logger program, and with this process writing the logs (no file of the pod stays
// open in this process).
func TestSmokeStartFailureLeavesNothing(t *testing.T) {
	t.Run("logger", func(t *testing.T) { testStartFailureLeavesNothing(t, newHarness(t)) })
	t.Run("in-process-logs", func(t *testing.T) {
		testStartFailureLeavesNothing(t, newHarness(t, func(c *podlife.Config) { c.ContainerLogger = "" }))
	})
}

func testStartFailureLeavesNothing(t *testing.T, h *harness) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := h.rt.Run(ctx, podlife.PodSpec{
		Name: "half", Volumes: []podlife.Volume{{Name: "mem", EmptyDir: &podlife.EmptyDirVolume{Medium: podlife.MediumMemory}}},
		Containers: []podlife.ContainerSpec{
			{Name: "ok", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
				VolumeMounts: []podlife.VolumeMount{{Name: "mem", MountPath: "/mem"}}},
			{Name: "broken", Image: testImage, Command: []string{"/does/not/exist"}},
		},
	})
	var se *podlife.StartError
	if !errors.As(err, &se) || se.Container != "broken" || (se.Step != podlife.StepCreate && se.Step != podlife.StepStart) {
		t.Fatalf("Run: %v, want a create/start StartError for container broken", err)
	}
	if !strings.Contains(err.Error(), "/does/not/exist") {
		t.Errorf("error %q does not carry runc's reason", err)
	}
	if _, err := os.Stat(filepath.Join(h.stateDir, "pods", "half")); !os.IsNotExist(err) {
		t.Errorf("pod dir left behind: %v", err)
	}
	for i := 0; ; i++ {
		open := openFilesUnder(t, h.stateDir)
		if len(open) == 0 {
			break
		}
		if i == 100 {
			t.Errorf("files of the state dir still open in this process 10 s on: %q", open)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The harness's cleanup fails the test on any leftover containerd object, mount, veth,
	// iptables rule or IPAM lease.
}

// Invalid specs are rejected before anything is created, with the field named.
func TestInvalidSpecCreatesNothing(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range invalidSpecs() {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.rt.Run(ctx, tc.spec)
			if !errors.Is(err, podlife.ErrInvalidSpec) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("Run: %v, want ErrInvalidSpec naming %s", err, tc.field)
			}
			if entries, _ := os.ReadDir(filepath.Join(h.stateDir, "pods")); len(entries) != 0 {
				t.Errorf("state left: %v", entries)
			}
			if cs, _ := env.client.Containers(namespacedCtx(ctx, h.ns)); len(cs) != 0 {
				t.Errorf("%d containers created for an invalid spec", len(cs))
			}
		})
	}
}

// openFiles lists the targets of this process's open file descriptors that keep accepts (a
// deleted file's target ends in " (deleted)").
func openFiles(t *testing.T, keep func(target string) bool) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && keep(target) {
			out = append(out, target)
		}
	}
	return out
}

// openFilesUnder lists the files under dir (deleted ones too) that this process holds open.
func openFilesUnder(t *testing.T, dir string) []string {
	return openFiles(t, func(target string) bool { return strings.HasPrefix(target, dir+"/") })
}
