package podlife

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/podlife/podlife/podlife/internal/tasks"
)

// The startup GC on the fake runtime, through the Runtime's adapter of its containerd seam
// (gcTasks): the containers and lease of a pod of this state dir without a record are deleted
// (task killed, container and snapshot deleted); those of a pod with a record, and those of
// another state dir, are left alone.
func TestFakeStartupGCContainerd(t *testing.T) {
	ctx := testCtx(t)
	r, f, clk := newFakeRuntime(t)
	spec := func(name string) PodSpec {
		return PodSpec{Name: name, Containers: []ContainerSpec{{Name: name + "-c", Image: fakeImage}}}
	}
	kept, err := r.Run(ctx, spec("kept"))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	orphan, err := r.Run(ctx, spec("orphan"))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	// A container and a lease of another state dir's pod.
	foreign := map[string]string{labelPod: "foreign", labelPodUID: "foreign-uid", labelContainer: "foreign-c", labelAttempt: "0", labelStateDir: "/elsewhere"}
	if _, err := f.NewContainer(ctx, "foreign-id", tasks.Class{}, tasks.Image{Name: fakeImage}, foreign, "", nil); err != nil {
		t.Fatal(err)
	}
	if err := f.CreateLease(ctx, "podlife-foreign-uid", foreign); err != nil {
		t.Fatal(err)
	}
	keptLease, orphanLease := kept.w.LeaseID(), orphan.w.LeaseID()
	closeManager(t, r)
	if err := os.Remove(filepath.Join(r.cfg.StateDir, "pods", "orphan", recordFile)); err != nil {
		t.Fatal(err)
	}

	g := newFakeAdopter(t, r, f, clk)
	g.collect(ctx)
	calls := f.history()
	if f.index("purge orphan-c") < 0 {
		t.Errorf("the orphan's container was not deleted; calls: %q", calls)
	}
	for _, c := range []string{"purge kept-c", "purge foreign-c", "delete kept-c", "delete foreign-c"} {
		if f.index(c) >= 0 {
			t.Errorf("%s: a container the GC must leave alone was deleted; calls: %q", c, calls)
		}
	}
	f.mu.Lock()
	_, orphanLeft := f.leased[orphanLease]
	_, keptLeft := f.leased[keptLease]
	_, foreignLeft := f.leased["podlife-foreign-uid"]
	f.mu.Unlock()
	if orphanLeft || !keptLeft || !foreignLeft {
		t.Errorf("leases left: orphan's %v (want false), kept's %v, foreign %v (want true)", orphanLeft, keptLeft, foreignLeft)
	}
}
