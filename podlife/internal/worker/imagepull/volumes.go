package imagepull

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// Image volumes: an image's unpacked filesystem, mounted read-only in the pod's directory from
// a view snapshot (no copy), as containerd's CRI does. The view is created under the pod's
// lease; the pod's removal unmounts it and removes the view (the lease's deletion would let
// containerd's garbage collector take it too, but not at once).

// Views is where image volumes' views are made and removed (the worker's tasks.Runtime).
type Views interface {
	MountImage(ctx context.Context, img tasks.Image, key, dir string) error
	RemoveView(ctx context.Context, key string) error
}

// MountVolumes gets the image of each image volume of vols (get applies its pull policy and
// back-off: see Get) and mounts a read-only view of it at the volume's directory, dir(name).
// ctx carries the pod's lease. An error names the volume.
func MountVolumes(ctx context.Context, views Views, podUID string, vols []api.Volume, dir func(volume string) string,
	get func(ctx context.Context, v api.Volume) (tasks.Image, error)) error {
	for _, v := range vols {
		if v.Image == nil {
			continue
		}
		img, err := get(ctx, v)
		if err != nil {
			return fmt.Errorf("volume %q: %w", v.Name, err)
		}
		d := dir(v.Name)
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("volume %q: %w", v.Name, err)
		}
		if err := views.MountImage(ctx, img, ViewKey(podUID, v.Name), d); err != nil {
			return fmt.Errorf("volume %q: image %q: %w", v.Name, v.Image.Reference, err)
		}
	}
	return nil
}

// RemoveViews removes the views of the pod's image volumes (once they are unmounted). A view
// already gone is not an error.
func RemoveViews(ctx context.Context, views Views, podUID string, vols []api.Volume) error {
	var errs []error
	for _, v := range vols {
		if v.Image == nil {
			continue
		}
		if err := views.RemoveView(ctx, ViewKey(podUID, v.Name)); err != nil {
			errs = append(errs, fmt.Errorf("volume %q: remove view: %w", v.Name, err))
		}
	}
	return errors.Join(errs...)
}
