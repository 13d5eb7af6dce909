//go:build linux

package sandboxns

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
}

// inNamespace runs fn on a throwaway thread that has joined the namespace
// pinned at path. nstype is a CLONE_NEW* flag.
func inNamespace(t *testing.T, path string, nstype int, fn func() error) {
	t.Helper()
	err := onThrowawayThread(func() error {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		if err := unix.Setns(fd, nstype); err != nil {
			return err
		}
		return fn()
	})
	if err != nil {
		t.Fatalf("in namespace %s: %v", path, err)
	}
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatalf("stat %s: %v", path, err)
	}
	return st.Ino
}

// mountsUnder returns the mount points in /proc/self/mountinfo below dir.
func mountsUnder(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var found []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 && strings.HasPrefix(fields[4], dir+"/") {
			found = append(found, fields[4])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return found
}

func TestCreateAndRemove(t *testing.T) {
	requireRoot(t)
	created := []Kind{Net, IPC, UTS}
	hostNS := make(map[Kind]uint64)
	for _, k := range created {
		hostNS[k] = inode(t, "/proc/self/ns/"+string(k))
	}
	dir := filepath.Join(t.TempDir(), "ns")
	t.Cleanup(func() { _ = Remove(dir) })

	const hostname = "pod-under-test"
	paths, err := Create(dir, created, hostname)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	for _, k := range created {
		if want := filepath.Join(dir, string(k)); paths[k] != want {
			t.Errorf("path for %s = %q, want %q", k, paths[k], want)
		}
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode: %v, %v; want 0700", st.Mode(), err)
	}
	if got := len(mountsUnder(t, dir)); got != 3 {
		t.Errorf("%d mounts under %s, want 3", got, dir)
	}

	for _, k := range created {
		if inode(t, paths[k]) == hostNS[k] {
			t.Errorf("%s namespace is the host's", k)
		}
		// /proc/self is the main thread, which must never be moved.
		if got := inode(t, "/proc/self/ns/"+string(k)); got != hostNS[k] {
			t.Errorf("main thread left the host %s namespace", k)
		}
	}

	inNamespace(t, paths[Net], unix.CLONE_NEWNET, func() error {
		lo, err := net.InterfaceByName("lo")
		if err != nil {
			return err
		}
		if lo.Flags&net.FlagUp == 0 {
			return errors.New("lo is down")
		}
		ifs, err := net.Interfaces()
		if err != nil {
			return err
		}
		if len(ifs) != 1 {
			return errors.New("new netns has more than lo")
		}
		return nil
	})

	inNamespace(t, paths[UTS], unix.CLONE_NEWUTS, func() error {
		got, err := os.Hostname()
		if err != nil {
			return err
		}
		if got != hostname {
			return errors.New("hostname is " + got)
		}
		return nil
	})

	for i := range 2 {
		if err := Remove(dir); err != nil {
			t.Fatalf("Remove #%d: %v", i+1, err)
		}
	}
	if m := mountsUnder(t, dir); len(m) != 0 {
		t.Errorf("mounts left after Remove: %v", m)
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists: %v", p, err)
		}
	}
}

func TestCreateUndoesOnFailure(t *testing.T) {
	requireRoot(t)
	dir := t.TempDir()
	t.Cleanup(func() { _ = Remove(dir) })

	// A pre-existing uts file makes Create fail after it pinned net.
	existing := filepath.Join(dir, string(UTS))
	if err := os.WriteFile(existing, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(dir, []Kind{Net, UTS}, ""); err == nil {
		t.Fatal("Create over an existing pin file succeeded")
	}
	if _, err := os.Lstat(filepath.Join(dir, string(Net))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("net pin not undone: %v", err)
	}
	if b, err := os.ReadFile(existing); err != nil || string(b) != "keep" {
		t.Errorf("existing file touched: %q, %v", b, err)
	}
	if m := mountsUnder(t, dir); len(m) != 0 {
		t.Errorf("mounts left: %v", m)
	}
}

func TestCreateBadHostnameUndoes(t *testing.T) {
	requireRoot(t)
	dir := filepath.Join(t.TempDir(), "ns")
	if _, err := Create(dir, []Kind{Net, UTS}, strings.Repeat("h", 100)); err == nil {
		t.Fatal("Create with a 100-byte hostname succeeded")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dir created by failed Create not removed: %v", err)
	}
}

func TestCreateRejectsBadKinds(t *testing.T) {
	for name, kinds := range map[string][]Kind{
		"none":      nil,
		"unknown":   {"pid"},
		"duplicate": {Net, Net},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ns")
			if _, err := Create(dir, kinds, ""); err == nil {
				t.Fatal("Create succeeded")
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("dir created for invalid input: %v", err)
			}
		})
	}
}

func TestThrowawayThreadIsNeverMain(t *testing.T) {
	for range 200 {
		err := onThrowawayThread(func() error {
			if unix.Gettid() == unix.Getpid() {
				return errors.New("ran on the main thread")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func BenchmarkCreateRemove(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root")
	}
	dir := filepath.Join(b.TempDir(), "ns")
	for b.Loop() {
		if _, err := Create(dir, []Kind{Net, IPC, UTS}, "bench"); err != nil {
			b.Fatal(err)
		}
		if err := Remove(dir); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPinProcess(t *testing.T) {
	requireRoot(t)
	dir := filepath.Join(t.TempDir(), "ns")
	t.Cleanup(func() { _ = Remove(dir) })
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	want := inode(t, fmt.Sprintf("/proc/%d/ns/pid", cmd.Process.Pid))
	if want == inode(t, "/proc/self/ns/pid") {
		t.Fatal("the child is in the test's PID namespace")
	}
	p, err := PinProcess(dir, PID, cmd.Process.Pid)
	if err != nil {
		t.Fatalf("PinProcess: %v", err)
	}
	if p != filepath.Join(dir, "pid") {
		t.Errorf("path %q", p)
	}
	if got := inode(t, p); got != want {
		t.Errorf("pinned inode %d, the child's PID namespace is %d", got, want)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	// The pin outlives the process and still names its namespace.
	if got := inode(t, p); got != want {
		t.Errorf("after the exit: pinned inode %d, want %d", got, want)
	}
	if _, err := PinProcess(dir, PID, cmd.Process.Pid); err == nil {
		t.Error("a second pin of the same kind succeeded")
	}
	if err := Remove(dir); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if m := mountsUnder(t, dir); len(m) != 0 {
		t.Errorf("mounts left after Remove: %v", m)
	}
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still exists: %v", p, err)
	}
}

func TestCreateRefusesPID(t *testing.T) {
	if _, err := Create(t.TempDir(), []Kind{PID}, ""); err == nil {
		t.Fatal("Create of a PID namespace succeeded")
	}
}
