package podlife

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/containerd/containerd/v2/core/snapshots"
	"github.com/containerd/errdefs"
)

// Image volumes: an image's unpacked filesystem, mounted read-only in the pod's directory from
// a view snapshot (no copy), as containerd's CRI does. The view is created under the pod's
// lease; Remove unmounts it and removes the view (the lease's deletion would let containerd's
// garbage collector take it too, but not at once).

// imageViewKey is the snapshot key of the view of a pod's image volume.
func imageViewKey(podUID, volume string) string { return "podlife-" + podUID + "-image-" + volume }

// mountImageVolumes ensures the image of each image volume (with its pull policy, emitting the
// kubelet's pull events for the pod) and mounts a read-only view of it at the volume's
// directory. ctx carries the pod's lease. An error names the volume.
func (p *Pod) mountImageVolumes(ctx context.Context) error {
	for _, v := range p.spec.Volumes {
		if v.Image == nil {
			continue
		}
		img, err := p.ensure(ctx, "", v.Image.Reference, v.Image.PullPolicy)
		if err != nil {
			return fmt.Errorf("volume %q: %w", v.Name, err)
		}
		dir := p.sandbox.volumeDir(v.Name)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("volume %q: %w", v.Name, err)
		}
		if err := p.rt.tasks.mountImage(ctx, img, imageViewKey(p.uid, v.Name), dir); err != nil {
			return fmt.Errorf("volume %q: image %q: %w", v.Name, v.Image.Reference, err)
		}
	}
	return nil
}

// removeImageViews removes the views of the pod's image volumes (once they are unmounted: see
// Sandbox.removeVolumes). A view already gone is not an error.
func (p *Pod) removeImageViews(ctx context.Context) error {
	var errs []error
	for _, v := range p.spec.Volumes {
		if v.Image == nil {
			continue
		}
		if err := p.rt.tasks.removeView(ctx, imageViewKey(p.uid, v.Name)); err != nil {
			errs = append(errs, fmt.Errorf("volume %q: remove view: %w", v.Name, err))
		}
	}
	return errors.Join(errs...)
}

// removeImageViewsOf removes the image volume views of the pod uid, found by their keys, for a
// pod whose spec is not at hand (one without a manager: see unmanaged.remove). Its mounts must
// be gone.
func (r *Runtime) removeImageViewsOf(ctx context.Context, uid string) error {
	sn := r.client.SnapshotService(r.cfg.Snapshotter)
	prefix := imageViewKey(uid, "")
	var keys []string
	err := sn.Walk(ctx, func(_ context.Context, info snapshots.Info) error {
		if info.Kind == snapshots.KindView && strings.HasPrefix(info.Name, prefix) {
			keys = append(keys, info.Name)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("image volume views: %w", err)
	}
	var errs []error
	for _, k := range keys {
		if err := sn.Remove(ctx, k); err != nil && !errdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("remove view %s: %w", k, err))
		}
	}
	return errors.Join(errs...)
}
