package floor

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

	"github.com/podlife/podlife/internal/bench/measure"
	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// Floor is the straightforward path through the containerd client: netns + CNI ADD, then each
// container created and started one after another; to stop, each killed, waited for and
// deleted, then CNI DEL and the netns removed.
type Floor struct {
	e   *measure.Env
	ctx context.Context
	img client.Image
}

// New imports the bench image into the run's floor namespace and returns the floor over it.
func New(ctx context.Context, e *measure.Env) (*Floor, error) {
	ctx = namespaces.WithNamespace(ctx, e.NS("floor"))
	img, err := podlifetest.ImportBusybox(ctx, e.Ctrd.Client, measure.Image)
	if err != nil {
		return nil, err
	}
	return &Floor{e: e, ctx: ctx, img: img}, nil
}

// Pod is one floor pod: its netns and its two containers, their tasks and exit channels.
type Pod struct {
	id    string
	nsDir string
	netns string
	ctrs  []client.Container
	tasks []client.Task
	exits []<-chan client.ExitStatus
}

// Start creates floor pod number i (netns, CNI ADD, both containers created and started) and
// returns it with the time it took; on an error the pod returned, if any, needs Cleanup.
func (f *Floor) Start(i int) (*Pod, time.Duration, error) {
	c := f.e.Ctrd.Client
	p := &Pod{id: fmt.Sprintf("floor-%d", i), nsDir: filepath.Join(f.e.Dir, fmt.Sprintf("fns%d", i))}
	t0 := time.Now()
	paths, err := sandboxns.Create(p.nsDir, []sandboxns.Kind{sandboxns.Net}, "")
	if err != nil {
		return nil, 0, err
	}
	p.netns = paths[sandboxns.Net]
	if _, err := f.e.Bridge.Setup(f.ctx, p.id, p.netns); err != nil {
		return p, 0, err
	}
	for j := range 2 {
		id := fmt.Sprintf("%s-c%d", p.id, j)
		ctr, err := c.NewContainer(f.ctx, id, client.WithNewSnapshot(id, f.img),
			client.WithNewSpec(oci.WithImageConfig(f.img), oci.WithProcessArgs(measure.ContainerCmd...),
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

// Stop kills, waits for and deletes both containers, then CNI DEL and the netns, and returns
// the time it took.
func (f *Floor) Stop(p *Pod) (time.Duration, error) {
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
	if err := f.e.Bridge.Remove(f.ctx, p.id, p.netns); err != nil {
		return 0, err
	}
	if err := sandboxns.Remove(p.nsDir); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// Cleanup undoes a failed floor iteration.
func (f *Floor) Cleanup(p *Pod) {
	if p == nil {
		return
	}
	for _, t := range p.tasks {
		_, _ = t.Delete(f.ctx, client.WithProcessKill)
	}
	for _, c := range p.ctrs {
		_ = c.Delete(f.ctx, client.WithSnapshotCleanup)
	}
	_ = f.e.Bridge.Remove(f.ctx, p.id, p.netns)
	_ = sandboxns.Remove(p.nsDir)
}
