package podlife_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/platforms"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/podlife/reasons"
)

func simplePod(name, image string, policy podlife.PullPolicy) podlife.PodSpec {
	return podlife.PodSpec{
		Name: name, TerminationGracePeriod: ptr(5 * time.Second),
		Containers: []podlife.ContainerSpec{{Name: "app", Image: image, ImagePullPolicy: policy,
			Command: []string{"/bin/sh", "-c", loopForever}}},
	}
}

// Pulls from a real registry on 127.0.0.1 with credentials; without them the pod fails to start
// with a pull error and nothing is left behind.
func TestPullFromRegistry(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	creds := &podlifetest.Credentials{Username: "podlife", Password: "s3cret-" + env.runID}
	reg, err := podlifetest.StartRegistry(ctx, t.TempDir(), creds)
	if err != nil {
		t.Fatalf("registry: %v", err)
	}
	defer reg.Close()
	remote := reg.Addr() + "/podlife/busybox:1"
	h.keepImages = append(h.keepImages, remote) // a pulled image stays, as on a kubelet
	if err := reg.Push(namespaces.WithNamespace(ctx, h.ns), env.client, testImage, remote); err != nil {
		t.Fatalf("push: %v", err)
	}

	t.Run("without credentials", func(t *testing.T) {
		_, err := h.rt.Run(ctx, simplePod("pull-nocreds", remote, podlife.PullAlways))
		var se *podlife.StartError
		if !errors.As(err, &se) || se.Step != podlife.StepPull || se.Container != "app" {
			t.Fatalf("Run: %v, want a pull StartError for container app", err)
		}
		if msg := strings.ToLower(err.Error()); !strings.Contains(msg, "unauthorized") && !strings.Contains(msg, "authorization failed") {
			t.Errorf("error %q does not say the registry refused", err)
		}
		if _, err := h.rt.Pod("pull-nocreds"); !errors.Is(err, podlife.ErrNotFound) {
			t.Errorf("failed pod still registered: %v", err)
		}
	})
	t.Run("with credentials", func(t *testing.T) {
		spec := simplePod("pull-creds", remote, podlife.PullAlways)
		spec.PullCredentials = []podlife.RegistryCredential{{Registry: reg.Addr(), Username: creds.Username, Password: creds.Password}}
		pod, err := h.rt.Run(ctx, spec)
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		var pulled bool
		for _, e := range pod.Events() {
			pulled = pulled || e.Reason == reasons.Pulled && strings.HasPrefix(e.Message, "Successfully pulled image")
		}
		if !pulled {
			t.Errorf("no Pulled event: %v", pod.Events())
		}
		if st := pod.Status(); st.ContainerStatuses[0].State.Running == nil {
			t.Errorf("state %+v, want running", st.ContainerStatuses[0].State)
		}
	})
}

// Pull policy Never with the image missing fails clearly, creating nothing.
func TestSmokePullNeverMissing(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := h.rt.Run(ctx, simplePod("never", "podlife.test/absent:1", podlife.PullNever))
	if !errors.Is(err, podlife.ErrImageNeverPull) {
		t.Fatalf("Run: %v, want ErrImageNeverPull", err)
	}
	if !strings.Contains(err.Error(), `container "app"`) || !strings.Contains(err.Error(), "podlife.test/absent:1") {
		t.Errorf("error %q should name the container and the image", err)
	}
}

// The pull-policy defaults follow Kubernetes: an untagged or :latest image is always pulled.
func TestPullPolicyDefaultLatest(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Tagged: present locally, so IfNotPresent uses it.
	pod, err := h.rt.Run(ctx, simplePod("tagged", testImage, ""))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if e := pod.Events(); !containsMessage(e, "already present on machine") {
		t.Errorf("events %v, want the image used as present", e)
	}
	// :latest is pulled, and nothing listens on 127.0.0.1:1: the pull fails.
	_, err = h.rt.Run(ctx, simplePod("latest", "127.0.0.1:1/podlife/busybox:latest", ""))
	var se *podlife.StartError
	if !errors.As(err, &se) || se.Step != podlife.StepPull {
		t.Errorf("Run with :latest: %v, want a pull error (policy Always)", err)
	}
}

func containsMessage(es []podlife.Event, sub string) bool {
	for _, e := range es {
		if strings.Contains(e.Message, sub) {
			return true
		}
	}
	return false
}

// Images lists what ImportImage brought in: its name, the digest of its manifest and a size.
func TestImagesListsImported(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	imgs, err := h.rt.Images(ctx)
	if err != nil {
		t.Fatalf("Images: %v", err)
	}
	var found bool
	for _, img := range imgs {
		if img.Name == testImage {
			found = true
			if !strings.HasPrefix(img.Digest, "sha256:") || img.Size <= 0 {
				t.Errorf("image %+v: want a sha256 digest and a size", img)
			}
		}
	}
	if !found {
		t.Errorf("Images = %+v, want %s (imported by the harness)", imgs, testImage)
	}
}

// Of a multi-platform archive whose index lists another architecture's manifest first,
// ImportImage unpacks this host's, not the first: the other's layer (only /arch) is not
// unpacked, and a container of the image runs in busybox's root.
func TestImportMultiPlatformUnpacksHost(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	other := "s390x"
	if runtime.GOARCH == other {
		other = "amd64"
	}
	const ref = "podlife.test/multi:1"
	var archive bytes.Buffer
	if err := podlifetest.BusyboxArchive(&archive, ref, podlifetest.WithOtherPlatformFirst(other)); err != nil {
		t.Fatal(err)
	}
	h.keepImages = append(h.keepImages, ref)
	names, err := h.rt.ImportImage(ctx, &archive)
	if err != nil || len(names) != 1 || names[0] != ref {
		t.Fatalf("ImportImage = %v, %v; want [%s]", names, err, ref)
	}
	// Unpacked: this host's image, not the other. (A container's create unpacks the host's
	// anyway, and its layer is the harness image's, unpacked already: the other's is where the
	// difference shows.)
	nctx := namespaces.WithNamespace(ctx, h.ns)
	stored, err := env.client.ImageService().Get(nctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		platform string
		want     bool
	}{{"linux/" + runtime.GOARCH, true}, {"linux/" + other, false}} {
		img := client.NewImageWithPlatform(env.client, stored, platforms.OnlyStrict(platforms.MustParse(tc.platform)))
		if ok, err := img.IsUnpacked(nctx, h.cfg.Snapshotter); ok != tc.want {
			t.Errorf("image for %s unpacked = %v (%v), want %v", tc.platform, ok, err, tc.want)
		}
	}
	pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: "multi", RestartPolicy: podlife.RestartNever, Containers: []podlife.ContainerSpec{{
		Name: "app", Image: ref, ImagePullPolicy: podlife.PullNever,
		Command: []string{"/bin/sh", "-c", "if [ -e /arch ]; then echo foreign; else echo host; fi; uname -m"},
	}}})
	if err != nil {
		t.Fatalf("Run: %v (the other platform's image has no /bin/sh)", err)
	}
	st, err := pod.Wait(ctx)
	if err != nil || st.Phase != podlife.PhaseSucceeded {
		t.Fatalf("Wait: %v, phase %s", err, st.Phase)
	}
	rec, err := h.rt.LookupPod(ctx, "multi")
	if err != nil {
		t.Fatal(err)
	}
	files := rec.LogFiles("app")
	if len(files) != 1 {
		t.Fatalf("log files %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), " F host\n") || strings.Contains(string(b), "foreign") {
		t.Errorf("container output %q, want it to run in the host's image", b)
	}
}
