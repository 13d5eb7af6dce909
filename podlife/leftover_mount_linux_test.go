package podlife_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// A private mount of a hostPath left under the pod directory by a manager killed between the
// mount and its release (made by hand here, as the kill would leave it), in a state dir that
// mountinfo does not show as configured: one reached through a symlink, one whose path holds a
// space (mountinfo writes it \040). Neither Pod.Remove from a fresh Runtime nor the startup
// garbage collection of a fresh Runtime (the pod's directory renamed .removing-, as a manager
// killed during Remove leaves it) deletes through the mount: the host directory keeps its files.
func TestLeftoverMountOddStateDir(t *testing.T) {
	h := newHarness(t)
	stateDirs := map[string]func(t *testing.T) (cfgDir, realDir string){
		"symlink": func(t *testing.T) (string, string) {
			real := tempStateDir(t, "sl-")
			link := real + "-link"
			if err := os.Symlink(real, link); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Remove(link) })
			return link, real
		},
		"space": func(t *testing.T) (string, string) {
			dir := tempStateDir(t, "state dir ")
			return dir, dir
		},
	}
	for _, kind := range []string{"symlink", "space"} {
		for _, by := range []string{"removepod", "gc"} {
			t.Run(kind+"/"+by, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				cfgDir, realDir := stateDirs[kind](t)
				cfg := h.cfg
				cfg.StateDir = cfgDir
				cfg.Logger = cfg.Logger.With("runtime", kind+"/"+by)
				newRuntime := func() *podlife.Runtime {
					rt, err := podlife.New(ctx, cfg)
					if err != nil {
						t.Fatalf("podlife.New on %q: %v", cfgDir, err)
					}
					t.Cleanup(func() { _ = rt.Close() })
					return rt
				}

				host := t.TempDir() // stands for a host directory a manifest mounts
				files := map[string]string{"keep": "keep", filepath.Join("sub", "deep"): "deep"}
				for name, content := range files {
					if err := os.MkdirAll(filepath.Dir(filepath.Join(host, name)), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(host, name), []byte(content), 0o644); err != nil {
						t.Fatal(err)
					}
				}

				rt := newRuntime()
				name := fmt.Sprintf("odd-%s-%s", kind, by)
				pod, err := rt.Run(ctx, podlife.PodSpec{
					Name: name, TerminationGracePeriod: ptr(time.Duration(0)),
					Volumes: []podlife.Volume{{Name: "host", HostPath: &podlife.HostPathVolume{Path: host, Type: podlife.HostPathDirectory}}},
					Containers: []podlife.ContainerSpec{{Name: "c", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
						VolumeMounts: []podlife.VolumeMount{{Name: "host", MountPath: "/host", SubPath: "sub"}}}},
				})
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				podDir := filepath.Join(realDir, "pods", name)
				// The manager dies between volmount's safeMount and Private.Release: the hostPath's
				// private mount point stays under the pod directory.
				point := filepath.Join(podDir, "subpaths", "deadbeef", "0")
				if err := os.MkdirAll(point, 0o700); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					// Whatever the outcome, nothing of this state dir is left mounted (so that
					// t.TempDir's own removal cannot go through it either).
					if err := podlifetest.RemoveAll(realDir); err != nil {
						t.Errorf("cleanup: %v", err)
					}
				})
				if err := syscall.Mount(host, point, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
					t.Fatalf("bind mount: %v", err)
				}
				if err := rt.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}

				switch by {
				case "removepod":
					if err := removePod(ctx, newRuntime(), pod.Name()); err != nil {
						t.Errorf("Pod.Remove: %v", err)
					}
				case "gc":
					// Killed during Remove, after the rename: no record, a .removing- directory.
					if err := os.Rename(podDir, filepath.Join(realDir, "pods", ".removing-"+name+"-0badf00d")); err != nil {
						t.Fatal(err)
					}
					newRuntime() // New collects
				}

				for name, content := range files {
					if b, err := os.ReadFile(filepath.Join(host, name)); err != nil || string(b) != content {
						t.Errorf("host file %s behind the leftover mount: %q, %v; want %q", name, b, err, content)
					}
				}
				if left, err := podlifetest.HostLeaks(realDir, "", "", ""); err != nil || len(left) > 0 {
					t.Errorf("mounts left under the state dir: %q %v", left, err)
				}
				if entries, err := os.ReadDir(filepath.Join(realDir, "pods")); err != nil || len(entries) > 0 {
					t.Errorf("left in pods/: %v %v", entries, err)
				}
			})
		}
	}
}

// tempStateDir makes a state directory for one test (its name starts with prefix).
func tempStateDir(t *testing.T, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp(env.dir, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := podlifetest.RemoveAll(dir); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return dir
}
