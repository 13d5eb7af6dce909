package podlifetest

import (
	"context"
	"fmt"
	"slices"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/snapshots"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/errdefs"
)

// snapshotterType is the plugin type of snapshotters in introspection.
const snapshotterType = "io.containerd.snapshotter.v1"

// ContainerdLeaks lists what is left in namespace ns of the containerd c
// talks to: containers, tasks, leases, content ingests, active and view
// snapshots of every loaded snapshotter (committed snapshots are unpacked
// image layers, not leaks), and images whose name is not in keepImages.
// Each item is a human-readable line such as
// `container "p-c1" in namespace "x"`. No items means no leaks.
func ContainerdLeaks(ctx context.Context, c *client.Client, ns string, keepImages ...string) ([]string, error) {
	ctx = namespaces.WithNamespace(ctx, ns)
	var leaks []string
	for _, list := range []func(context.Context, *client.Client) ([]string, error){
		containerLeaks,
		leaseLeaks,
		ingestLeaks,
		snapshotLeaks,
		func(ctx context.Context, c *client.Client) ([]string, error) {
			return imageLeaks(ctx, c, keepImages)
		},
	} {
		items, err := list(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("podlifetest: %w", err)
		}
		for _, it := range items {
			leaks = append(leaks, fmt.Sprintf("%s in namespace %q", it, ns))
		}
	}
	return leaks, nil
}

// containerLeaks lists containers and their tasks. Every task belongs to a
// container, so walking the containers finds all tasks.
func containerLeaks(ctx context.Context, c *client.Client) ([]string, error) {
	ctrs, err := c.Containers(ctx)
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	var leaks []string
	for _, ctr := range ctrs {
		leaks = append(leaks, fmt.Sprintf("container %q", ctr.ID()))
		task, err := ctr.Task(ctx, nil)
		if errdefs.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("load task %s: %w", ctr.ID(), err)
		}
		st, err := task.Status(ctx)
		if err != nil {
			return nil, fmt.Errorf("task %s status: %w", ctr.ID(), err)
		}
		leaks = append(leaks, fmt.Sprintf("task %q (pid %d, %s)", ctr.ID(), task.Pid(), st.Status))
	}
	return leaks, nil
}

func leaseLeaks(ctx context.Context, c *client.Client) ([]string, error) {
	leases, err := c.LeasesService().List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list leases: %w", err)
	}
	var leaks []string
	for _, l := range leases {
		leaks = append(leaks, fmt.Sprintf("lease %q", l.ID))
	}
	return leaks, nil
}

func ingestLeaks(ctx context.Context, c *client.Client) ([]string, error) {
	ingests, err := c.ContentStore().ListStatuses(ctx)
	if err != nil {
		return nil, fmt.Errorf("list content ingests: %w", err)
	}
	var leaks []string
	for _, st := range ingests {
		leaks = append(leaks, fmt.Sprintf("content ingest %q", st.Ref))
	}
	return leaks, nil
}

// snapshotLeaks lists active and view snapshots of every snapshotter that
// loaded.
func snapshotLeaks(ctx context.Context, c *client.Client) ([]string, error) {
	plugins, err := c.IntrospectionService().Plugins(ctx, "type=="+snapshotterType)
	if err != nil {
		return nil, fmt.Errorf("list snapshotters: %w", err)
	}
	var leaks []string
	for _, p := range plugins.Plugins {
		if p.InitErr != nil {
			continue
		}
		err := c.SnapshotService(p.ID).Walk(ctx, func(_ context.Context, info snapshots.Info) error {
			if info.Kind == snapshots.KindActive || info.Kind == snapshots.KindView {
				leaks = append(leaks, fmt.Sprintf("%s snapshot %q of %s", info.Kind, info.Name, p.ID))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("walk %s snapshots: %w", p.ID, err)
		}
	}
	return leaks, nil
}

func imageLeaks(ctx context.Context, c *client.Client, keep []string) ([]string, error) {
	imgs, err := c.ImageService().List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list images: %w", err)
	}
	var leaks []string
	for _, img := range imgs {
		if !slices.Contains(keep, img.Name) {
			leaks = append(leaks, fmt.Sprintf("image %q", img.Name))
		}
	}
	return leaks, nil
}
