package podlife_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// chattyCommand prints numbered lines of about 210 bytes as fast as it can and writes the
// number of the last one to /marks/beat (its heartbeat).
var chattyCommand = `trap 'exit 0' TERM; p=` + strings.Repeat("x", 200) +
	`; i=0; while :; do i=$((i+1)); echo "line $i $p"; echo $i > /marks/beat; done`

// bytesAfterGone is how much the container prints once its manager is gone: many pipe buffers
// (64 KiB), so a container whose output still went through its manager would have blocked.
const bytesAfterGone = 1 << 20

// A container's output is written by the shared logger its shim's logger handed it to, not by
// the managing process: with its manager gone (its Runtime closed, as if its process died), a container
// printing steadily goes on (its heartbeat advances by more than 1 MiB of output), its log file
// keeps growing, in the CRI format, rotated under the cap with no line lost, and another
// process reads it meanwhile. The pipes of its stdout and stderr are held by the shared logger,
// a child of a shim, and by no descriptor of the manager's process; it exits after the pod's
// removal.
func TestLogsOutliveManager(t *testing.T) {
	limits := podlife.LogLimits{MaxSize: 256 << 10, MaxFiles: 3}
	h := newHarness(t, func(c *podlife.Config) { c.Logs = limits })
	if h.cfg.ContainerLogger == "" {
		t.Fatal("the harness has no container logger")
	}
	gone := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	name := "chatty"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := removePod(ctx, h.rt, name, podlife.WithGracePeriod(2*time.Second)); err != nil && !errors.Is(err, podlife.ErrNotFound) {
			t.Errorf("cleanup: Pod.Remove: %v", err)
		}
	})
	marks := t.TempDir()
	pod, err := gone.Run(ctx, podlife.PodSpec{
		Name:    name,
		Volumes: []podlife.Volume{{Name: "marks", HostPath: &podlife.HostPathVolume{Path: marks, Type: podlife.HostPathDirectory}}},
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", chattyCommand},
			VolumeMounts: []podlife.VolumeMount{{Name: "marks", MountPath: "/marks"}},
		}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	app, err := pod.Container("app")
	if err != nil {
		t.Fatal(err)
	}
	logPath := podlife.LogPath(app)
	if err := pod.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}

	// The pipes: held by the state dir's shared logger, whose parent is a shim (the subreaper
	// it was left to when the process the shim started for the container handed the pipes
	// over and exited), not by this process.
	logger := sharedLoggerOf(t, h.stateDir)
	if ppid := parentOf(t, logger); !strings.Contains(cmdline(ppid), "containerd-shim") {
		t.Errorf("the logger's parent %d is %q, want a shim", ppid, cmdline(ppid))
	}
	ours := pipeInodes(os.Getpid())
	theirs := pipeInodes(logger)
	if len(theirs) != 2 {
		t.Fatalf("the shared logger holds pipes %v (fds %s), want the container's stdout and stderr alone", theirs, fdList(logger))
	}
	for pipe := range theirs {
		if ours[pipe] {
			t.Errorf("this process (the manager) holds the container's output pipe %s", pipe)
		}
	}

	// The manager goes; the container goes on printing.
	if err := gone.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	b0 := heartbeat(t, marks)
	target := b0 + bytesAfterGone/210 + 1
	for deadline := time.Now().Add(2 * time.Minute); heartbeat(t, marks) < target; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("heartbeat stuck at %d after the manager went (was %d at the close): the container's output blocks", heartbeat(t, marks), b0)
		}
	}
	// Another process reads the log meanwhile: the current file has lines printed after the
	// manager went.
	var last int
	for deadline := time.Now().Add(time.Minute); last < target; time.Sleep(50 * time.Millisecond) {
		if ns := logNumbers(t, logPath, true); len(ns) > 0 {
			last = ns[len(ns)-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log's last line is %d, want at least %d: the log stopped growing", last, target)
		}
	}

	// The harness's leak check sees the running logger (and, after the removal, none).
	done, stop := context.WithCancel(ctx)
	stop()
	if l := podlifetest.LoggerLeaks(done, h.stateDir); len(l) != 1 || !strings.Contains(l[0], strconv.Itoa(logger)) {
		t.Errorf("LoggerLeaks while the container runs: %q, want its logger %d", l, logger)
	}

	// Stopped from another Runtime; then the files are final: under the cap, contiguous.
	if err := stopPod(ctx, h.rt, name, podlife.WithGracePeriod(2*time.Second)); err != nil {
		t.Fatalf("Pod.Stop: %v", err)
	}
	rotated, _ := filepath.Glob(logPath + ".*")
	slices.Sort(rotated)
	if len(rotated) != limits.MaxFiles-1 {
		t.Errorf("%d rotated files, want %d (MaxFiles %d)", len(rotated), limits.MaxFiles-1, limits.MaxFiles)
	}
	var seen []int
	for _, f := range append(rotated, logPath) {
		if st, err := os.Stat(f); err != nil || st.Size() > limits.MaxSize+16<<10 {
			t.Errorf("%s: %v, size over MaxSize %d", f, err, limits.MaxSize)
		}
		seen = append(seen, logNumbers(t, f, false)...)
	}
	if len(seen) == 0 || seen[len(seen)-1] < target || seen[0] == 1 {
		t.Fatalf("kept lines %v..%v, want the newest up to at least %d, the oldest rotated away", seen[:min(1, len(seen))], seen[max(0, len(seen)-1):], target)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] != seen[i-1]+1 {
			t.Fatalf("line %d follows line %d in the kept files: output lost", seen[i], seen[i-1])
		}
	}
	// The logger ended with the task.
	if err := removePod(ctx, h.rt, name); err != nil {
		t.Fatalf("Pod.Remove: %v", err)
	}
	waitExited(t, logger)
}

// heartbeat reads the chatty container's counter (0 until it has written one).
func heartbeat(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "beat"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// logNumbers returns the numbers of the chatty container's lines in a CRI log file, failing
// the test on a line that does not parse. growing: the file is being written, its last line
// may be incomplete.
func logNumbers(t *testing.T, path string, growing bool) []int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []int
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if !growing && line != "" {
				t.Fatalf("%s: last line without its newline: %q", path, line)
			}
			return out
		}
		l, ok := podlife.ParseLogLine([]byte(strings.TrimSuffix(line, "\n")))
		fs := strings.Fields(l.Text)
		if !ok || l.Stream != "stdout" || l.Partial || len(fs) != 3 || fs[0] != "line" {
			t.Fatalf("%s: unexpected line %.80q", path, line)
		}
		n, _ := strconv.Atoi(fs[1])
		out = append(out, n)
	}
}

// sharedLoggerOf finds the shared container logger of stateDir (see podlife/containerlogger).
func sharedLoggerOf(t *testing.T, stateDir string) int {
	t.Helper()
	pids := podlifetest.Processes("--podlife-log-daemon\x00" + filepath.Clean(stateDir) + "\x00")
	if len(pids) != 1 {
		t.Fatalf("shared loggers of %s: %v, want one", stateDir, pids)
	}
	return pids[0]
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

func parentOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "PPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	t.Fatalf("no PPid in /proc/%d/status", pid)
	return 0
}

// pipeInodes returns the pipes ("pipe:[inode]") process pid has open.
func pipeInodes(pid int) map[string]bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, _ := os.ReadDir(dir)
	out := map[string]bool{}
	for _, e := range entries {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.HasPrefix(l, "pipe:") {
			out[l] = true
		}
	}
	return out
}

// waitExited waits (bounded) for a process that is not this one's child to be gone.
func waitExited(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d (%s) still runs", pid, cmdline(pid))
		}
	}
}

// fdList describes the descriptors of process pid.
func fdList(pid int) string {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		l, _ := os.Readlink(filepath.Join(dir, e.Name()))
		out = append(out, e.Name()+"="+l)
	}
	return strings.Join(out, " ")
}
