package main

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/contrib/seccomp"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// containerCmd is what both the floor and podlife run. Both stop it with SIGKILL: a signal
// with a handler installed by the workload would race with the workload's own start.
var containerCmd = []string{"sleep", "3600"}

// floor is the straightforward path through the containerd client: netns + CNI ADD, then each
// container created and started one after another; to stop, each killed, waited for and
// deleted, then CNI DEL and the netns removed.
type floor struct {
	e   *env
	ctx context.Context
	img client.Image
}

func newFloor(ctx context.Context, e *env) (*floor, error) {
	ctx = namespaces.WithNamespace(ctx, e.ns("floor"))
	img, err := podlifetest.ImportBusybox(ctx, e.ctrd.Client, image)
	if err != nil {
		return nil, err
	}
	return &floor{e: e, ctx: ctx, img: img}, nil
}

type floorPod struct {
	id    string
	nsDir string
	netns string
	ctrs  []client.Container
	tasks []client.Task
	exits []<-chan client.ExitStatus
}

func (f *floor) start(i int) (*floorPod, time.Duration, error) {
	c := f.e.ctrd.Client
	p := &floorPod{id: fmt.Sprintf("floor-%d", i), nsDir: filepath.Join(f.e.dir, fmt.Sprintf("fns%d", i))}
	t0 := time.Now()
	paths, err := sandboxns.Create(p.nsDir, []sandboxns.Kind{sandboxns.Net}, "")
	if err != nil {
		return nil, 0, err
	}
	p.netns = paths[sandboxns.Net]
	if _, err := f.e.bridge.Setup(f.ctx, p.id, p.netns); err != nil {
		return p, 0, err
	}
	for j := range 2 {
		id := fmt.Sprintf("%s-c%d", p.id, j)
		ctr, err := c.NewContainer(f.ctx, id, client.WithNewSnapshot(id, f.img),
			client.WithNewSpec(oci.WithImageConfig(f.img), oci.WithProcessArgs(containerCmd...),
				oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.NetworkNamespace, Path: p.netns}),
				// The same containers as podlife's: its default security settings.
				oci.WithNoNewPrivileges, seccomp.WithDefaultProfile()))
		if err != nil {
			return p, 0, err
		}
		p.ctrs = append(p.ctrs, ctr)
		task, err := ctr.NewTask(f.ctx, cio.NullIO)
		if err != nil {
			return p, 0, err
		}
		p.tasks = append(p.tasks, task)
		exit, err := task.Wait(f.ctx)
		if err != nil {
			return p, 0, err
		}
		p.exits = append(p.exits, exit)
		if err := task.Start(f.ctx); err != nil {
			return p, 0, err
		}
	}
	return p, time.Since(t0), nil
}

func (f *floor) stop(p *floorPod) (time.Duration, error) {
	t0 := time.Now()
	for j, task := range p.tasks {
		if err := task.Kill(f.ctx, syscall.SIGKILL); err != nil {
			return 0, err
		}
		<-p.exits[j]
		if _, err := task.Delete(f.ctx); err != nil {
			return 0, err
		}
		if err := p.ctrs[j].Delete(f.ctx, client.WithSnapshotCleanup); err != nil {
			return 0, err
		}
	}
	if err := f.e.bridge.Remove(f.ctx, p.id, p.netns); err != nil {
		return 0, err
	}
	if err := sandboxns.Remove(p.nsDir); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// cleanup undoes a failed floor iteration.
func (f *floor) cleanup(p *floorPod) {
	if p == nil {
		return
	}
	for _, t := range p.tasks {
		_, _ = t.Delete(f.ctx, client.WithProcessKill)
	}
	for _, c := range p.ctrs {
		_ = c.Delete(f.ctx, client.WithSnapshotCleanup)
	}
	_ = f.e.bridge.Remove(f.ctx, p.id, p.netns)
	_ = sandboxns.Remove(p.nsDir)
}
