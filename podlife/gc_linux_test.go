package podlife_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/leases"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// New's startup garbage collection removes what dead processes left of pods that have no record
// (each leftover made by hand here, as a crash would leave it), and touches neither a healthy
// pod of another live Runtime on the state dir nor containerd objects of another state dir.
func TestStartupGC(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	nctx := namespaces.WithNamespace(ctx, h.ns)
	ipam := filepath.Join(h.stateDir, "cni", "ipam", h.bridge.Name)

	// A healthy pod of a live manager (h.rt).
	healthy, err := h.rt.Run(ctx, podlife.PodSpec{Name: "healthy", TerminationGracePeriod: ptr(time.Duration(0)),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	healthyIP := healthy.Sandbox().IP()

	// 1. A pod directory without pod.json, with pinned namespaces and a network attachment
	// that sandbox.json records (a crash before the record, or a record that could not be written).
	half := filepath.Join(h.stateDir, "pods", "half")
	if err := os.MkdirAll(half, 0o700); err != nil {
		t.Fatal(err)
	}
	ns, err := sandboxns.Create(filepath.Join(half, "ns"), []sandboxns.Kind{sandboxns.Net, sandboxns.UTS, sandboxns.IPC}, "half")
	if err != nil {
		t.Fatalf("pin namespaces: %v", err)
	}
	const halfUID = "0123456789abcdef0123456789abcdef"
	if _, err := h.network.Setup(ctx, "podlife-"+halfUID, ns[sandboxns.Net]); err != nil {
		t.Fatalf("CNI ADD: %v", err)
	}
	sb, _ := json.Marshal(map[string]string{"uid": halfUID, "network": "attached", "netns": ns[sandboxns.Net]})
	if err := os.WriteFile(filepath.Join(half, "sandbox.json"), sb, 0o600); err != nil {
		t.Fatal(err)
	}

	// 2. An IP lease whose sandbox is gone (its namespace unpinned, no pod directory).
	const leasedUID = "fedcba9876543210fedcba9876543210"
	other := t.TempDir()
	ns2, err := sandboxns.Create(other, []sandboxns.Kind{sandboxns.Net}, "")
	if err != nil {
		t.Fatalf("pin namespaces: %v", err)
	}
	if _, err := h.network.Setup(ctx, "podlife-"+leasedUID, ns2[sandboxns.Net]); err != nil {
		t.Fatalf("CNI ADD: %v", err)
	}
	if err := sandboxns.Remove(other); err != nil {
		t.Fatal(err)
	}

	// 3. A running container and a lease of a pod of this state dir that has no record, and a
	// container of another state dir's pod.
	const orphanUID, foreignUID = "00000000000000000000000000000001", "00000000000000000000000000000002"
	img, err := env.client.GetImage(nctx, testImage)
	if err != nil {
		t.Fatal(err)
	}
	newCtr := func(id string, labels map[string]string) client.Container {
		ctr, err := env.client.NewContainer(nctx, id, client.WithNewSnapshot(id, img),
			client.WithNewSpec(oci.WithImageConfig(img), oci.WithProcessArgs("/bin/sh", "-c", loopForever)),
			client.WithContainerLabels(labels))
		if err != nil {
			t.Fatalf("container %s: %v", id, err)
		}
		return ctr
	}
	orphan := newCtr("gc-orphan-"+env.runID, map[string]string{"podlife.io/pod": "gone", "podlife.io/pod-uid": orphanUID, "podlife.io/state-dir": h.stateDir})
	task, err := orphan.NewTask(nctx, cio.NullIO)
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Start(nctx); err != nil {
		t.Fatal(err)
	}
	foreign := newCtr("gc-foreign-"+env.runID, map[string]string{"podlife.io/pod": "theirs", "podlife.io/pod-uid": foreignUID, "podlife.io/state-dir": "/elsewhere"})
	t.Cleanup(func() {
		if err := foreign.Delete(namespaces.WithNamespace(context.Background(), h.ns), client.WithSnapshotCleanup); err != nil {
			t.Errorf("delete the other state dir's container: %v", err)
		}
	})
	if _, err := env.client.LeasesService().Create(nctx, leases.WithID("podlife-"+orphanUID),
		leases.WithLabels(map[string]string{"podlife.io/pod-uid": orphanUID, "podlife.io/state-dir": h.stateDir})); err != nil {
		t.Fatal(err)
	}
	if n := ipamLeases(t, ipam); n != 3 {
		t.Fatalf("%d IP leases before the collection, want 3", n)
	}

	rt := h.another(t) // New collects

	if _, err := os.Stat(half); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("half-created pod directory: %v, want it removed", err)
	}
	if m, err := podlifetest.HostLeaks(half, "", "", ""); err != nil || len(m) > 0 {
		t.Errorf("mounts left under %s: %v %v", half, m, err)
	}
	if n := ipamLeases(t, ipam); n != 1 {
		t.Errorf("%d IP leases after the collection, want 1 (the healthy pod's)", n)
	}
	if _, err := env.client.LoadContainer(nctx, orphan.ID()); !errdefs.IsNotFound(err) {
		t.Errorf("orphan container: %v, want it deleted", err)
	}
	if ls, _ := env.client.LeasesService().List(nctx, `id=="podlife-`+orphanUID+`"`); len(ls) != 0 {
		t.Errorf("orphan lease %v left", ls)
	}
	if _, err := env.client.LoadContainer(nctx, foreign.ID()); err != nil {
		t.Errorf("another state dir's container: %v, want it untouched", err)
	}
	// The healthy pod: same manager, running, same IP, its container's process alive.
	rec, err := rt.LookupPod(ctx, "healthy")
	if err != nil || rec.Manager != os.Getpid() || rec.UID != healthy.UID() {
		t.Fatalf("healthy pod: %+v %v", rec, err)
	}
	st := healthy.Status()
	if st.Phase != podlife.PhaseRunning || st.ContainerStatuses[0].State.Running == nil || st.ContainerStatuses[0].RestartCount != 0 || st.PodIP != healthyIP {
		t.Errorf("healthy pod after the collection: %+v", st)
	}
	if _, err := healthy.Container("app"); err != nil {
		t.Error(err)
	} else if res, err := execOutput(ctx, healthy, "app", []string{"cat", "/etc/hostname"}); err != nil || strings.TrimSpace(string(res.Output)) != "healthy" {
		t.Errorf("exec in the healthy pod: %+v %v", res, err)
	}
	log := h.logs.String()
	for _, want := range []string{"removed a half-created pod directory", "deleted a container of a pod that has no record",
		"deleted the lease of a pod that has no record", "released the IP lease of a pod that has no record"} {
		if !strings.Contains(log, want) {
			t.Errorf("no %q in the log", want)
		}
	}
}

// ipamLeases counts host-local's reserved addresses in dir.
func ipamLeases(t *testing.T, dir string) int {
	t.Helper()
	leaks, err := podlifetest.HostLeaks("", "", "", dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(leaks)
}

// A pod whose pod.json cannot be read (garbage here; a disk error or a half-restored backup
// would do the same) is still a live pod: the startup garbage collection of another Runtime on
// the state dir keeps its directory, its containers with their running tasks, its containerd
// lease and its IP lease, and says in its log that it skipped the collection.
func TestStartupGCUnreadableRecord(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	nctx := namespaces.WithNamespace(ctx, h.ns)
	pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: "unreadable", TerminationGracePeriod: ptr(time.Duration(0)),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	uidFilter := `labels."podlife.io/pod-uid"==` + pod.UID()
	record := filepath.Join(pod.Sandbox().Dir(), "pod.json")
	good, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(record, []byte(`{"name": "unread`), 0o600); err != nil {
		t.Fatal(err)
	}
	defer func() { // the harness's cleanup removes the pod
		if err := os.WriteFile(record, good, 0o600); err != nil {
			t.Error(err)
		}
	}()
	before, err := env.client.Containers(nctx, uidFilter)
	if err != nil || len(before) == 0 {
		t.Fatalf("the pod's containers: %v %v", before, err)
	}
	lease := filepath.Join(h.stateDir, "cni", "ipam", h.bridge.Name, pod.Sandbox().IP().String())
	if b, err := os.ReadFile(lease); err != nil || !strings.HasPrefix(string(b), "podlife-"+pod.UID()) {
		t.Fatalf("the pod's IP lease %s: %q %v", lease, b, err)
	}

	h.another(t) // New collects

	for _, ctr := range before {
		task, err := ctr.Task(nctx, nil)
		if err != nil {
			t.Errorf("container %s: task: %v, want it kept", ctr.ID(), err)
			continue
		}
		if st, err := task.Status(nctx); err != nil || st.Status != client.Running {
			t.Errorf("container %s: task %+v %v, want it running", ctr.ID(), st, err)
		}
	}
	if after, err := env.client.Containers(nctx, uidFilter); err != nil || len(after) != len(before) {
		t.Errorf("the pod's containers after the collection: %d %v, want %d", len(after), err, len(before))
	}
	if ls, err := env.client.LeasesService().List(nctx, uidFilter); err != nil || len(ls) == 0 {
		t.Errorf("the pod's containerd lease after the collection: %v %v, want it kept", ls, err)
	}
	if b, err := os.ReadFile(lease); err != nil || !strings.HasPrefix(string(b), "podlife-"+pod.UID()) {
		t.Errorf("the pod's IP lease after the collection: %q %v, want it kept", b, err)
	}
	if _, err := os.Stat(record); err != nil {
		t.Errorf("the pod's directory: %v, want it kept", err)
	}
	if _, err := pod.Container("app"); err != nil {
		t.Error(err)
	} else if res, err := execOutput(ctx, pod, "app", []string{"cat", "/etc/hostname"}); err != nil || strings.TrimSpace(string(res.Output)) != "unreadable" {
		t.Errorf("exec in the pod after the collection: %+v %v", res, err)
	}
	if log := h.logs.String(); !strings.Contains(log, "pod record unreadable") || !strings.Contains(log, "containers, leases and IP leases not collected") {
		t.Errorf("no warning that the collection was skipped in the log:\n%s", log)
	}
}
