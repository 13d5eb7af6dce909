package podlife

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/podlife/podlife/podlife/internal/worker/imagepull"
)

// An image volume's image is ensured with its pull policy and its view mounted before any
// container is created; Remove removes the view. Under Never with the image missing, the start
// fails at the pull step naming the volume, and no container is created.
func TestFakeImageVolume(t *testing.T) {
	const ref = "podlife.test/data:1"
	spec := func() PodSpec {
		return PodSpec{Name: "imgvol",
			Volumes: []Volume{{Name: "data", Image: &ImageVolume{Reference: ref, PullPolicy: PullNever}}},
			Containers: []ContainerSpec{{Name: "c", Image: fakeImage,
				VolumeMounts: []VolumeMount{{Name: "data", MountPath: "/img"}}}}}
	}
	t.Run("mounted", func(t *testing.T) {
		ctx := testCtx(t)
		r, f, _ := newFakeRuntime(t)
		pod, err := r.Start(ctx, spec())
		if err != nil {
			t.Fatal(err)
		}
		key := imagepull.ViewKey(pod.w.UID(), "data")
		mounted := f.waitCall(t, "mount image "+ref+" as "+key)
		if created := slices.IndexFunc(f.history(), func(c string) bool { return strings.HasPrefix(c, "create ") }); created >= 0 && created < mounted {
			t.Errorf("a container was created before the image volume was mounted: %q", f.history())
		}
		if !pod.w.VolumeReadOnly("data") {
			t.Error("an image volume must be mounted read-only")
		}
		if err := pod.Remove(ctx); err != nil {
			t.Fatal(err)
		}
		if f.index("remove view "+key) < 0 {
			t.Errorf("view %s not removed; calls: %q", key, f.history())
		}
	})
	t.Run("never-missing", func(t *testing.T) {
		ctx := testCtx(t)
		r, f, _ := newFakeRuntime(t)
		f.absent[ref] = true
		_, err := r.Run(ctx, spec())
		var se *StartError
		if !errors.As(err, &se) || se.Step != StepPull || !errors.Is(err, ErrImageNeverPull) {
			t.Fatalf("Run = %v, want a StartError at the pull step wrapping ErrImageNeverPull", err)
		}
		if !strings.Contains(err.Error(), `volume "data"`) || !strings.Contains(err.Error(), ref) {
			t.Errorf("error %q should name the volume and the image", err)
		}
		for _, c := range f.history() {
			if strings.HasPrefix(c, "create ") || strings.HasPrefix(c, "mount image") {
				t.Errorf("%q after the image volume failed; calls: %q", c, f.history())
			}
		}
	})
}
