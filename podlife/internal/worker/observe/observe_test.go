package observe

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/containerd/errdefs"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/cgroupfs"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/layout"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// fakeTasks answers the calls Observe makes (the rest of tasks.Runtime is left nil).
type fakeTasks struct {
	tasks.Runtime
	found  []tasks.Found
	images map[string]tasks.Image // by normalised reference
	match  map[string]string      // Containers' last filter
}

func (f *fakeTasks) Containers(_ context.Context, match map[string]string, _ ...string) ([]tasks.Found, error) {
	f.match = match
	return f.found, nil
}

func (f *fakeTasks) LocalImage(_ context.Context, ref string) (tasks.Image, bool, error) {
	img, ok := f.images[ref]
	return img, ok, nil
}

func (f *fakeTasks) ImageConfig(context.Context, tasks.Image) (ocispec.Image, error) {
	return ocispec.Image{Config: ocispec.ImageConfig{StopSignal: "SIGINT"}}, nil
}

type fakeCtr struct {
	tasks.Container
	cgroup string
	task   *fakeTask // nil: no task
}

func (c *fakeCtr) LoadTask(context.Context) (tasks.Task, error) {
	if c.task == nil {
		return nil, errdefs.ErrNotFound
	}
	return c.task, nil
}

type fakeTask struct {
	tasks.Task
	status ctrd.ProcessStatus
}

func (t *fakeTask) Status(context.Context) (ctrd.Status, error) {
	return ctrd.Status{Status: t.status}, nil
}

// found is a container of the pod with the given labels, its task in status st ("" for none).
func found(id string, labels map[string]string, st ctrd.ProcessStatus, handles map[string]*fakeCtr) tasks.Found {
	return tasks.Found{ID: id, Labels: labels, Image: "img-" + id, Handle: func(cgroup string) tasks.Container {
		c := &fakeCtr{cgroup: cgroup}
		if st != "" {
			c.task = &fakeTask{status: st}
		}
		handles[id] = c
		return c
	}}
}

// Observe reads the pod's containers by its UID label: the pause apart, the others by name and
// attempt with their tasks' states, their cgroups as the worker made them; the pinned
// namespaces that exist; the spec's images found locally with their configs.
func TestObserve(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []sandboxns.Kind{sandboxns.Net, sandboxns.PID} {
		if err := os.MkdirAll(filepath.Join(dir, "ns"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "ns", string(k)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, layout.SandboxFile), []byte(`{"uid":"u1","network":"attached","ip":"10.0.0.2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	handles := map[string]*fakeCtr{}
	lbl := func(name, kind, attempt string) map[string]string {
		return map[string]string{LabelContainer: name, LabelKind: kind, LabelAttempt: attempt}
	}
	ft := &fakeTasks{
		found: []tasks.Found{
			found("p", lbl("POD", KindPause, "0"), ctrd.Running, handles),
			found("a1", lbl("a", "app", "1"), "", handles),
			found("a0", lbl("a", "app", "0"), ctrd.Stopped, handles),
			found("i0", lbl("i", "init", "0"), ctrd.Created, handles),
			found("e0", lbl("dbg", KindEphemeral, "0"), ctrd.Paused, handles),
		},
		images: map[string]tasks.Image{"docker.io/library/busybox:latest": {Name: "busybox", ID: "sha256:1"}},
	}
	spec := api.PodSpec{
		InitContainers: []api.ContainerSpec{{Name: "i", Image: "busybox"}},
		Containers:     []api.ContainerSpec{{Name: "a", Image: "missing"}},
	}
	o, err := Observe(context.Background(), Request{Tasks: ft, Namespace: "ns1", Spec: spec, UID: "u1", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if ft.match[layout.LabelPodUID] != "u1" {
		t.Errorf("containers listed with %v, want the pod's UID label", ft.match)
	}
	if o.Pause == nil || o.Pause.ID != "p" || o.Pause.State != TaskRunning {
		t.Errorf("pause = %+v, want p running", o.Pause)
	}
	if !o.AnyTask || o.Sandbox.IP != "10.0.0.2" || o.Sandbox.Network != "attached" {
		t.Errorf("AnyTask %v, sandbox %+v", o.AnyTask, o.Sandbox)
	}
	if got := o.NSPaths[sandboxns.Net]; got != filepath.Join(dir, "ns", "net") || len(o.NSPaths) != 1 {
		t.Errorf("NSPaths = %v, want the net namespace only", o.NSPaths)
	}
	if o.PIDNS != filepath.Join(dir, "ns", "pid") {
		t.Errorf("PIDNS = %q", o.PIDNS)
	}
	a := o.Containers["a"]
	if len(a) != 2 || a[0].ID != "a0" || a[0].State != TaskStopped || a[1].ID != "a1" || a[1].State != TaskNone || a[1].Task != nil {
		t.Errorf("instances of a = %+v, want a0 stopped then a1 without task", a)
	}
	if i := o.Containers["i"]; len(i) != 1 || i[0].State != TaskCreated {
		t.Errorf("instances of i = %+v", i)
	}
	if e := o.Containers["dbg"]; len(e) != 1 || e[0].State != TaskRunning || e[0].Image != "img-e0" {
		t.Errorf("instances of dbg = %+v", e)
	}
	if _, ok := o.Containers["POD"]; ok {
		t.Error("the pause is among the containers")
	}
	for id, want := range map[string]string{"p": cgroupfs.Path("ns1", "p"), "a0": cgroupfs.Path("ns1", "a0"), "e0": cgroupfs.Path("ns1", "e0")} {
		if got := handles[id].cgroup; got != want {
			t.Errorf("cgroup of %s = %q, want %q", id, got, want)
		}
	}
	if img := o.Images["i"]; !img.Found || img.Image.ID != "sha256:1" || img.Config.Config.StopSignal != "SIGINT" || img.ConfigErr != nil {
		t.Errorf("image of i = %+v", img)
	}
	if img := o.Images["a"]; img.Found || img.Err != nil {
		t.Errorf("image of a = %+v, want not found", img)
	}
}

// A pod with pod-level resources has its containers' cgroups under the pod cgroup; its pause
// and ephemeral containers keep containerd's default.
func TestObservePodCgroup(t *testing.T) {
	handles := map[string]*fakeCtr{}
	ft := &fakeTasks{found: []tasks.Found{
		found("p", map[string]string{LabelContainer: "POD", LabelKind: KindPause}, ctrd.Running, handles),
		found("a0", map[string]string{LabelContainer: "a", LabelKind: "app", LabelAttempt: "0"}, ctrd.Running, handles),
		found("e0", map[string]string{LabelContainer: "dbg", LabelKind: KindEphemeral, LabelAttempt: "0"}, ctrd.Running, handles),
	}}
	spec := api.PodSpec{Resources: api.Resources{MemoryLimit: 64 << 20}}
	if _, err := Observe(context.Background(), Request{Tasks: ft, Namespace: "ns1", Spec: spec, UID: "u1", Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"p": cgroupfs.Path("ns1", "p"), "a0": "/ns1/podu1/a0", "e0": cgroupfs.Path("ns1", "e0")} {
		if got := handles[id].cgroup; got != want {
			t.Errorf("cgroup of %s = %q, want %q", id, got, want)
		}
	}
}
