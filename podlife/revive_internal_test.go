package podlife

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/errdefs"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// noNetwork is a cni.Network for runtimes that run no pod.
type noNetwork struct{}

func (noNetwork) Setup(context.Context, string, string, ...cni.AttachOption) (*cni.Result, error) {
	return nil, errors.ErrUnsupported
}
func (noNetwork) Remove(context.Context, string, string, ...cni.AttachOption) error { return nil }

// exitedPID reports whether pid is gone or a zombie.
func exitedPID(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || strings.Contains(string(b), ") Z ")
}

// revive starts the private containerd again, on the same root, after it was SIGKILLed; for an
// address podlife does not own it only reports whether containerd answers.
func TestRevive(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	bin, err := podlifetest.ContainerdBinary("../.cache/bin/containerd")
	if err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "plt-rv")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctrdDir := filepath.Join(dir, "containerd")
	defer daemon.Shutdown(context.Background(), ctrdDir, nil) //nolint:errcheck // a failed test still stops it

	// The private containerd even where a system one serves (never touched).
	r, err := New(ctx, Config{StateDir: dir, Embedded: EmbeddedConfig{Binary: bin, IgnoreSystem: true}, Network: noNetwork{}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	before, err := daemon.Lookup(ctrdDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.revive(ctx); err != nil {
		t.Errorf("revive with containerd up = %v", err)
	}
	if now, _ := daemon.Lookup(ctrdDir); now.PID != before.PID {
		t.Errorf("revive with containerd up replaced it: pid %d, was %d", now.PID, before.PID)
	}
	// Something in containerd's root, to see that the new daemon has the same one.
	lease := "plt-revive-" + strconv.Itoa(os.Getpid())
	labelKey := "podlife.test/revive-" + strconv.Itoa(os.Getpid())
	if err := r.ctrd.CreateLease(r.ctx(ctx), lease, map[string]string{labelKey: "yes"}); err != nil {
		t.Fatal(err)
	}
	defer r.ctrd.DeleteLease(r.ctx(context.Background()), lease) //nolint:errcheck

	if err := syscall.Kill(before.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); !exitedPID(before.PID); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the killed containerd did not exit")
		}
	}
	begin := time.Now()
	if err := r.revive(ctx); err != nil {
		t.Fatalf("revive after containerd died: %v", err)
	}
	t.Logf("revive took %v", time.Since(begin))
	after, err := daemon.Lookup(ctrdDir)
	if err != nil || after.PID == before.PID {
		t.Fatalf("after revive: Lookup = %+v, %v; want a new daemon", after, err)
	}
	// The Runtime's own client finds it again (gRPC redials by itself).
	var kept []ctrd.Lease
	begin = time.Now()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if kept, err = r.ctrd.Leases(r.ctx(ctx), labelKey); err == nil || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("the runtime's client answered again after %v", time.Since(begin))
	if err != nil || len(kept) != 1 || kept[0].ID != lease {
		t.Errorf("lease %s through the runtime's client after revive: %v %v; want it kept", lease, kept, err)
	}

	// An address podlife does not own: revive only checks it.
	other := &Runtime{cfg: Config{Namespace: DefaultNamespace}, address: filepath.Join(dir, "nothing.sock")}
	if err := other.revive(ctx); !errors.Is(err, errdefs.ErrUnavailable) {
		t.Errorf("revive of a dead system address = %v, want ErrUnavailable", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nothing.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("revive created something at a system address: %v", err)
	}
	other.address = after.Address
	if err := other.revive(ctx); err != nil {
		t.Errorf("revive of an answering address = %v", err)
	}
}
