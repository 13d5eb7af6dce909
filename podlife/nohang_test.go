package podlife_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/core/content"
	"github.com/containerd/containerd/v2/core/images"
	"github.com/containerd/containerd/v2/core/leases"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/platforms"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/podlife/podlife/podlife"
)

// badStopSignalImage makes, in the harness's namespace, a copy of the test image whose config
// has a STOPSIGNAL no one can parse, and returns its name. The harness deletes it at cleanup.
func badStopSignalImage(t *testing.T, h *harness) string {
	t.Helper()
	const name = "podlife.test/bad-stopsignal:1"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ctx = namespaces.WithNamespace(ctx, h.ns)
	// A lease keeps the new blobs from the garbage collector until the image refers to them.
	ctx, done, err := env.client.WithLease(ctx, leases.WithExpiration(time.Hour))
	if err != nil {
		t.Fatalf("lease: %v", err)
	}
	defer func() { _ = done(context.WithoutCancel(ctx)) }()
	cs := env.client.ContentStore()
	img, err := env.client.ImageService().Get(ctx, testImage)
	if err != nil {
		t.Fatalf("get %s: %v", testImage, err)
	}
	mf, err := images.Manifest(ctx, cs, img.Target, platforms.Default())
	if err != nil {
		t.Fatalf("manifest: %v", err)
	}
	raw, err := content.ReadBlob(ctx, cs, mf.Config)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	var cfg ocispec.Image
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf("config: %v", err)
	}
	cfg.Config.StopSignal = "SIGNOTASIGNAL"
	write := func(mediaType string, v any, labels map[string]string) ocispec.Descriptor {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		desc := ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(b), Size: int64(len(b))}
		if err := content.WriteBlob(ctx, cs, desc.Digest.String(), bytes.NewReader(b), desc, content.WithLabels(labels)); err != nil {
			t.Fatalf("write %s: %v", mediaType, err)
		}
		return desc
	}
	mf.Config = write(mf.Config.MediaType, cfg, nil)
	refs := map[string]string{"containerd.io/gc.ref.content.config": mf.Config.Digest.String()}
	for i, l := range mf.Layers {
		refs[fmt.Sprintf("containerd.io/gc.ref.content.l.%d", i)] = l.Digest.String()
	}
	mdesc := write(ocispec.MediaTypeImageManifest, mf, refs)
	if mf.MediaType != "" {
		mdesc.MediaType = mf.MediaType
	}
	if _, err := env.client.ImageService().Create(ctx, images.Image{Name: name, Target: mdesc}); err != nil {
		t.Fatalf("create image %s: %v", name, err)
	}
	h.keepImages = append(h.keepImages, name)
	return name
}

// Run returns a *StartError naming the container and the step whenever a container fails
// before its task exists, in any position (the first container, which starts the pod's shim,
// included), under every start policy; nothing is left behind (the harness's leak check).
func TestEarlyFailureNeverHangs(t *testing.T) {
	type kind struct {
		name string
		step podlife.Step
		set  func(c *podlife.ContainerSpec, badImage string)
	}
	kinds := []kind{
		{"never", podlife.StepPull, func(c *podlife.ContainerSpec, _ string) {
			c.Image, c.ImagePullPolicy = "podlife.test/missing:1", podlife.PullNever
		}},
		{"config", podlife.StepCreate, func(c *podlife.ContainerSpec, bad string) { c.Image = bad }},
		{"create", podlife.StepCreate, func(c *podlife.ContainerSpec, _ string) {
			c.Command = []string{"/does/not/exist"}
		}},
	}
	// Where the failing container is: an app container among three, or the init container
	// (which then starts the pod's shim) of a pod with two app containers.
	positions := []struct {
		name  string
		init  bool
		index int
	}{{"first", false, 0}, {"middle", false, 1}, {"last", false, 2}, {"init", true, 0}}
	policies := []struct {
		name   string
		policy podlife.StartPolicy
	}{{"sequential", podlife.Sequential()}, {"parallel", podlife.Parallel(0)}, {"dependency", podlife.DependencyOrder()}}
	for _, pol := range policies {
		t.Run(pol.name, func(t *testing.T) {
			h := newHarness(t)
			bad := badStopSignalImage(t, h)
			begin := time.Now()
			for _, k := range kinds {
				for _, pos := range positions {
					t.Run(k.name+"-"+pos.name, func(t *testing.T) {
						spec := podlife.PodSpec{Name: fmt.Sprintf("early-%s-%s", k.name, pos.name), StartPolicy: pol.policy,
							TerminationGracePeriod: ptr(time.Duration(0))}
						for i := range 3 {
							c := podlife.ContainerSpec{Name: fmt.Sprintf("c%d", i), Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}
							if i > 0 && pol.name == "dependency" {
								c.DependsOn = []podlife.Dependency{{Container: fmt.Sprintf("c%d", i-1)}}
							}
							spec.Containers = append(spec.Containers, c)
						}
						failing := &spec.Containers[pos.index]
						if pos.init {
							spec.Containers = spec.Containers[:2]
							spec.InitContainers = []podlife.ContainerSpec{{Name: "init", Image: testImage, Command: []string{"/bin/sh", "-c", "true"}}}
							failing = &spec.InitContainers[0]
						}
						k.set(failing, bad)
						ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
						defer cancel()
						t0 := time.Now()
						pod, err := h.rt.Run(ctx, spec)
						took := time.Since(t0)
						var se *podlife.StartError
						if !errors.As(err, &se) || se.Container != failing.Name || se.Step != k.step {
							t.Fatalf("Run after %v: %v, want a %s StartError for container %s", took, err, k.step, failing.Name)
						}
						if pod != nil {
							t.Errorf("Run returned a pod with its error")
						}
						if _, err := h.rt.Pod(spec.Name); !errors.Is(err, podlife.ErrNotFound) {
							t.Errorf("pod after a failed Run: %v, want it removed", err)
						}
						t.Logf("Run failed in %v: %v", took.Round(time.Millisecond), err)
						if left := cgroupsLeft(h.ns); len(left) > 0 {
							t.Errorf("leak: cgroups left after the failed Run: %v", left)
						}
					})
				}
			}
			t.Logf("%d early failures under %s in %v", len(kinds)*len(positions), pol.name, time.Since(begin).Round(time.Millisecond))
		})
	}
}

// cgroupsLeft lists the container cgroups left in the namespace's cgroup (cgroup v1 pids
// hierarchy, or the v2 unified one), with the processes still in each.
func cgroupsLeft(ns string) []string {
	var out []string
	for _, root := range []string{"/sys/fs/cgroup/pids", "/sys/fs/cgroup"} {
		entries, err := os.ReadDir(filepath.Join(root, ns))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() {
				procs, _ := os.ReadFile(filepath.Join(root, ns, e.Name(), "cgroup.procs"))
				out = append(out, fmt.Sprintf("%s (procs %q)", filepath.Join(root, ns, e.Name()), strings.TrimSpace(string(procs))))
			}
		}
		return out
	}
	return out
}
