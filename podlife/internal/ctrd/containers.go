package ctrd

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/leases"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/containerd/errdefs"
	"github.com/opencontainers/runtime-spec/specs-go"
)

// Runtime is the containerd runtime (shim) a container runs with, and its options (nil for the
// runtime's defaults).
type Runtime struct {
	Name    string
	Options any
}

// NewContainer creates the container id with labels and the OCI spec that opts build. With an
// image, it gets a new snapshot of it (named id, with the client's snapshotter) and the spec
// starts from the image's config (opts apply after it); without (img nil), its root is what
// opts say (a host directory) and it has no snapshot.
func (c *Client) NewContainer(ctx context.Context, id string, rt Runtime, img *Image, labels map[string]string, opts []oci.SpecOpts) (*Container, error) {
	var copts []client.NewContainerOpts
	if img != nil {
		copts = append(copts, client.WithImageName(img.Name), client.WithSnapshotter(c.snapshotter),
			client.WithNewSnapshot(id, img.img))
		opts = append([]oci.SpecOpts{oci.WithImageConfig(img.img)}, opts...)
	}
	copts = append(copts, client.WithRuntime(rt.Name, rt.Options), client.WithNewSpec(opts...),
		client.WithContainerLabels(labels))
	ctr, err := c.c.NewContainer(ctx, id, copts...)
	if err != nil {
		return nil, err
	}
	return &Container{ctr: ctr}, nil
}

// labelFilter is a containerd filter matching objects whose label key has exactly value. Both
// are quoted (containerd's filter syntax unquotes Go-style double-quoted strings), so no value
// can add a clause or change the operator.
func labelFilter(key, value string) string {
	return fmt.Sprintf("labels.%q==%q", key, value)
}

// Containers lists the containers whose labels have exactly the values of match and that have
// each label of has, whatever its value.
func (c *Client) Containers(ctx context.Context, match map[string]string, has ...string) ([]*Container, error) {
	fs := make([]string, 0, len(match)+len(has))
	for k, v := range match {
		fs = append(fs, labelFilter(k, v))
	}
	for _, k := range has {
		fs = append(fs, fmt.Sprintf("labels.%q", k))
	}
	sort.Strings(fs)
	ctrs, err := c.c.Containers(ctx, strings.Join(fs, ","))
	if err != nil {
		return nil, err
	}
	out := make([]*Container, 0, len(ctrs))
	for _, ctr := range ctrs {
		out = append(out, &Container{ctr: ctr})
	}
	return out, nil
}

// LoadContainer returns the container id (an error wrapping errdefs.ErrNotFound if there is
// none).
func (c *Client) LoadContainer(ctx context.Context, id string) (*Container, error) {
	ctr, err := c.c.LoadContainer(ctx, id)
	if err != nil {
		return nil, err
	}
	return &Container{ctr: ctr}, nil
}

// Container is a containerd container.
type Container struct {
	ctr client.Container
}

// ID is its containerd ID.
func (c *Container) ID() string { return c.ctr.ID() }

// Labels are its labels as they were when it was listed or loaded (no request).
func (c *Container) Labels() map[string]string {
	info, _ := c.ctr.Info(context.Background(), client.WithoutRefreshedMetadata)
	return info.Labels
}

// Image is the name of the image it was created from, as it was when it was listed or loaded.
func (c *Container) Image() string {
	info, _ := c.ctr.Info(context.Background(), client.WithoutRefreshedMetadata)
	return info.Image
}

// NewTask creates its task (runc create), its process's stdio made by creator.
func (c *Container) NewTask(ctx context.Context, creator cio.Creator) (*Task, error) {
	task, err := c.ctr.NewTask(ctx, creator)
	if err != nil {
		return nil, err
	}
	return &Task{task: task}, nil
}

// Task returns its task (an error wrapping errdefs.ErrNotFound if it has none), its stdio not
// attached.
func (c *Container) Task(ctx context.Context) (*Task, error) {
	task, err := c.ctr.Task(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &Task{task: task}, nil
}

// ProcessSpec returns the process part of its OCI spec.
func (c *Container) ProcessSpec(ctx context.Context) (*specs.Process, error) {
	spec, err := c.ctr.Spec(ctx)
	if err != nil {
		return nil, err
	}
	return spec.Process, nil
}

// Delete deletes the container and its snapshot.
func (c *Container) Delete(ctx context.Context) error {
	return c.ctr.Delete(ctx, client.WithSnapshotCleanup)
}

// Purge deletes its task (killing its process) if it has one, then the container and its
// snapshot; a task or container already gone is not an error.
func (c *Container) Purge(ctx context.Context) error {
	if task, err := c.ctr.Task(ctx, nil); err == nil {
		if _, err := task.Delete(ctx, client.WithProcessKill); err != nil && !errdefs.IsNotFound(err) {
			if _, terr := c.ctr.Task(ctx, nil); !errdefs.IsNotFound(terr) {
				return fmt.Errorf("delete task: %w", err)
			}
		}
	} else if !errdefs.IsNotFound(err) {
		return fmt.Errorf("task: %w", err)
	}
	if err := c.ctr.Delete(ctx, client.WithSnapshotCleanup); err != nil && !errdefs.IsNotFound(err) {
		return err
	}
	return nil
}

// Lease is a containerd lease.
type Lease struct {
	ID     string
	Labels map[string]string
}

// CreateLease creates the lease id with labels.
func (c *Client) CreateLease(ctx context.Context, id string, labels map[string]string) error {
	_, err := c.c.LeasesService().Create(ctx, leases.WithID(id), leases.WithLabels(labels))
	return err
}

// DeleteLease deletes the lease id synchronously: what it held is gone when it returns, not at
// containerd's next garbage collection. An error wraps errdefs.ErrNotFound if it does not exist.
func (c *Client) DeleteLease(ctx context.Context, id string) error {
	return c.c.LeasesService().Delete(ctx, leases.Lease{ID: id}, leases.SynchronousDelete)
}

// Leases lists the leases that have the label key.
func (c *Client) Leases(ctx context.Context, key string) ([]Lease, error) {
	all, err := c.c.LeasesService().List(ctx, fmt.Sprintf("labels.%q", key))
	if err != nil {
		return nil, err
	}
	out := make([]Lease, 0, len(all))
	for _, l := range all {
		out = append(out, Lease{ID: l.ID, Labels: l.Labels})
	}
	return out, nil
}

// SetLabels sets labels on the container (the others it has stay).
func (c *Container) SetLabels(ctx context.Context, labels map[string]string) error {
	_, err := c.ctr.SetLabels(ctx, labels)
	return err
}
