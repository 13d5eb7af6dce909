package podlifetest_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/containerd/v2/pkg/oci"

	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// testRef is the name the busybox image is imported as.
const testRef = "podlife.test/busybox:1"

// testNamespace is unique per test process: runc keeps its state in
// /run/containerd/runc/<namespace>, shared by every containerd on the host.
var testNamespace = fmt.Sprintf("plt-%d", os.Getpid())

func TestContainerdRunBusybox(t *testing.T) {
	for _, v := range containerds(t) {
		t.Run(v.name, func(t *testing.T) {
			ctrd := startContainerd(t, v.binary)
			ctx := namespaces.WithNamespace(t.Context(), testNamespace)
			version, err := ctrd.Daemon.Version(ctx)
			if err != nil {
				t.Fatal(err)
			}

			begin := time.Now()
			img, err := podlifetest.ImportBusybox(ctx, ctrd.Client, testRef)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("containerd %s: busybox archive built, imported and unpacked in %v", version, time.Since(begin))
			if img.Name() != testRef {
				t.Errorf("image name = %q, want %q", img.Name(), testRef)
			}

			id := "plt-c1-" + v.name
			stdout, stderr := runTask(t, ctrd, img, id, "/bin/sh", "-c", "echo hi; seq 3")
			if want := "hi\n1\n2\n3\n"; stdout != want || stderr != "" {
				t.Errorf("stdout %q, stderr %q; want %q and nothing", stdout, stderr, want)
			}
			leaks, err := podlifetest.ContainerdLeaks(ctx, ctrd.Client, testNamespace, testRef)
			assertNoLeaks(t, leaks, err)
			leaks, err = podlifetest.ContainerdLeaks(ctx, ctrd.Client, testNamespace)
			if err != nil || len(leaks) != 1 {
				t.Errorf("ContainerdLeaks without keeping the image = %q, %v; want the image", leaks, err)
			}
		})
	}
}

// runTask runs args in a new container id from img, with a snapshot of its
// own, checks it exits 0, deletes task, container and snapshot, and
// returns the output.
func runTask(t *testing.T, ctrd *podlifetest.Containerd, img client.Image, id string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx := namespaces.WithNamespace(t.Context(), testNamespace)
	c := ctrd.Client
	ctr, err := c.NewContainer(ctx, id,
		client.WithNewSnapshot(id, img),
		client.WithNewSpec(oci.WithImageConfig(img), oci.WithProcessArgs(args...)),
	)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := ctr.Delete(ctx, client.WithSnapshotCleanup); err != nil {
			t.Errorf("delete container: %v", err)
		}
	}()

	var out, errOut bytes.Buffer
	// FIFOs default to /run/containerd/fifo: keep them in the daemon's dir.
	creator := cio.NewCreator(cio.WithStreams(nil, &out, &errOut), cio.WithFIFODir(filepath.Join(ctrd.Dir(), "fifo")))
	task, err := ctr.NewTask(ctx, creator)
	if err != nil {
		t.Fatal(err)
	}
	deleted := false
	defer func() {
		if !deleted {
			_, _ = task.Delete(ctx, client.WithProcessKill)
		}
	}()
	exitC, err := task.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Start(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case st := <-exitC:
		if code, _, err := st.Result(); err != nil || code != 0 {
			t.Errorf("exit code %d, err %v", code, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("task did not exit")
	}
	// Delete waits for the output to be copied.
	deleted = true
	if _, err := task.Delete(ctx); err != nil {
		t.Fatalf("delete task: %v", err)
	}
	return out.String(), errOut.String()
}

func TestContainerdCloseKillsTasks(t *testing.T) {
	v := containerds(t)[0]
	ctrd, err := podlifetest.StartContainerd(t.Context(), daemon.Config{Binary: v.binary})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ctrd.Close() })
	ctx := namespaces.WithNamespace(t.Context(), testNamespace)
	img, err := podlifetest.ImportBusybox(ctx, ctrd.Client, testRef)
	if err != nil {
		t.Fatal(err)
	}
	id := "plt-left-running"
	ctr, err := ctrd.Client.NewContainer(ctx, id,
		client.WithNewSnapshot(id, img),
		client.WithNewSpec(oci.WithImageConfig(img), oci.WithProcessArgs("sleep", "600")),
	)
	if err != nil {
		t.Fatal(err)
	}
	task, err := ctr.NewTask(ctx, cio.NullIO)
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Start(ctx); err != nil {
		t.Fatal(err)
	}
	pid := int(task.Pid())
	leaks, err := podlifetest.ContainerdLeaks(ctx, ctrd.Client, testNamespace, testRef)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("leaks while running:\n\t%s", strings.Join(leaks, "\n\t"))
	if len(leaks) < 3 { // container, task, active snapshot
		t.Errorf("want container, task and snapshot leaks, got %q", leaks)
	}

	if err := ctrd.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("task process %d still exists after Close: %v", pid, err)
	}
	if _, err := os.Stat(ctrd.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left after Close: %v", ctrd.Dir(), err)
	}
}
