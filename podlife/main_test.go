package podlife_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/images"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/cnipath"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// The integration tests run against a private containerd started once for the run (the binary
// in PODLIFE_TEST_CONTAINERD, else .cache/bin/containerd, else containerd in PATH), real runc,
// real CNI plugins and real network namespaces. Every test gets its own containerd namespace,
// state dir, bridge and subnet, named uniquely for the run, and fails if it leaks anything.

const testImage = "podlife.test/busybox:1"

var env testEnv

type testEnv struct {
	skip    string
	dir     string
	runID   string
	subnetA int
	daemon  *daemon.Daemon
	client  *client.Client
	archive []byte
	version string
	logger  string // the container logger binary every harness uses
	next    atomic.Int32
	subnets subnetPool
}

// subnetPool hands out the third byte of the harnesses' subnets (10.<subnetA>.<n>.0/24): each
// harness takes the lowest one free and gives it back once its cleanup has destroyed its
// network, so a long run (-count=10 of the crash test: hundreds of harnesses) never runs out.
type subnetPool struct {
	mu   sync.Mutex
	used [256]bool
}

// take returns a free third byte (1 to 254), or false if all are in use.
func (p *subnetPool) take() (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for n := 1; n < 255; n++ {
		if !p.used[n] {
			p.used[n] = true
			return n, true
		}
	}
	return 0, false
}

// give makes n free again.
func (p *subnetPool) give(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.used[n] = false
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := func() int {
		if err := env.setup(); err != nil {
			fmt.Fprintln(os.Stderr, "integration setup failed:", err)
			env.teardown()
			return 1
		}
		defer env.teardown()
		return m.Run()
	}()
	os.Exit(code)
}

func (e *testEnv) setup() error {
	switch {
	case testing.Short():
		e.skip = "integration test: -short"
		return nil
	case os.Geteuid() != 0:
		e.skip = "integration test: needs root"
		return nil
	}
	bin, err := podlifetest.ContainerdBinary("../.cache/bin/containerd")
	if err != nil {
		e.skip = "integration test: " + err.Error()
		return nil
	}
	var b [3]byte
	_, _ = rand.Read(b[:])
	e.runID = hex.EncodeToString(b[:])[:4]
	e.subnetA = 100 + int(b[2])%100
	dir, err := os.MkdirTemp("", "plt-")
	if err != nil {
		return err
	}
	e.dir = dir
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	e.daemon, err = daemon.Start(ctx, daemon.Config{Binary: bin, Dir: filepath.Join(dir, "ctrd"), LogFile: filepath.Join(dir, "containerd.log")})
	if err != nil {
		return err
	}
	e.client, err = client.New(e.daemon.Address())
	if err != nil {
		return err
	}
	e.version, _ = e.daemon.Version(ctx)
	if e.logger, err = podlifetest.ContainerLogger(dir); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := podlifetest.BusyboxArchive(&buf, testImage); err != nil {
		return err
	}
	e.archive = buf.Bytes()
	fmt.Fprintf(os.Stderr, "integration: containerd %s (%s), run %s\n", e.version, bin, e.runID)
	return nil
}

func (e *testEnv) teardown() {
	if e.client != nil {
		e.client.Close()
	}
	if e.daemon != nil {
		ctx, cancel := context.WithTimeout(context.Background(), budget(30*time.Second))
		_ = e.daemon.Stop(ctx)
		cancel()
	}
	if e.dir != "" {
		_ = os.RemoveAll(e.dir)
	}
}

// harness is one test's runtime, with its own namespace, state dir, bridge and subnet.
type harness struct {
	t        *testing.T
	rt       *podlife.Runtime
	ns       string
	stateDir string
	bridge   cni.BridgeConfig
	network  *cni.Bridge // the pods' network (destroyed by the cleanup)
	logs     *lockedWriter
	cfg      podlife.Config // the configuration h.rt was made with
	// keepImages are images the test may leave (the imported test image, pulled images).
	keepImages []string
	// sockets were in containerd's global shim socket dir before the test.
	sockets map[string]bool
	subnet  int // the third byte of the bridge's subnet, from env.subnets
}

// shimSocketDir is where every containerd puts its shims' sockets, whatever its own state dir.
const shimSocketDir = "/run/containerd/s"

func answers(sock string) bool {
	c, err := net.DialTimeout("unix", sock, 100*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// settledLive reports whether the shim socket sock belongs to a live shim or went away within a
// few seconds: the directory is shared by every containerd on the host (node-e2e's runs beside
// this package in `make test`), so a socket met while another run's shim starts or exits is not
// this test's leak. A socket that stays without an answer is.
func settledLive(sock string) bool {
	for i := 0; i < 30; i++ {
		if answers(sock) {
			return true
		}
		if _, err := os.Stat(sock); errors.Is(err, fs.ErrNotExist) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

func listSockets() map[string]bool {
	entries, _ := os.ReadDir(shimSocketDir)
	out := make(map[string]bool, len(entries))
	for _, e := range entries {
		out[e.Name()] = true
	}
	return out
}

type harnessOption func(*podlife.Config)

func newHarness(t *testing.T, opts ...harnessOption) *harness {
	t.Helper()
	if env.skip != "" {
		t.Skip(env.skip)
	}
	n := env.next.Add(1)
	h := &harness{t: t, ns: fmt.Sprintf("plt-%s-%d", env.runID, n), logs: &lockedWriter{}, keepImages: []string{testImage}}
	h.stateDir = filepath.Join(env.dir, fmt.Sprintf("s%d", n))
	h.sockets = listSockets()
	subnet, ok := env.subnets.take()
	if !ok {
		t.Fatalf("no free test subnet: 254 harnesses at once")
	}
	h.subnet = subnet
	h.bridge = cni.BridgeConfig{
		Name:     fmt.Sprintf("plt-%s-%d", env.runID, n),
		Bridge:   fmt.Sprintf("plt%s%d", env.runID, n),
		Subnet:   netip.MustParsePrefix(fmt.Sprintf("10.%d.%d.0/24", env.subnetA, subnet)),
		StateDir: filepath.Join(h.stateDir, "cni"),
		// The plugins pinned in go.mod, which `make` builds; else the system's.
		PluginDirs: cnipath.Dirs(filepath.Join("..", ".cache", "cni", "bin")),
	}
	// The harness makes the network itself (the Runtime's default would be the same bridge), so
	// that its cleanup can destroy it.
	nw, err := cni.NewBridge(h.bridge)
	if err != nil {
		env.subnets.give(subnet)
		t.Fatalf("bridge: %v", err)
	}
	h.network = nw
	cfg := podlife.Config{
		Address:   env.daemon.Address(),
		Namespace: h.ns,
		StateDir:  h.stateDir,
		Network:   nw,
		// Containers' output is written by the logger the shim runs, as in production; a test
		// of the in-process fallback clears it.
		ContainerLogger: env.logger,
		Logger:          slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, o := range opts {
		o(&cfg)
	}
	h.cfg = cfg
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	rt, err := podlife.New(ctx, cfg)
	if err != nil {
		t.Fatalf("podlife.New: %v", err)
	}
	h.rt = rt
	t.Cleanup(h.cleanup)
	names, err := rt.ImportImage(ctx, bytes.NewReader(env.archive))
	if err != nil {
		t.Fatalf("import image: %v", err)
	}
	if len(names) != 1 || names[0] != testImage {
		t.Fatalf("imported %v, want [%s]", names, testImage)
	}
	return h
}

// another returns a second Runtime on the harness's configuration (same containerd, namespace,
// state dir and network), as another process sharing the state directory would have: in this
// process it has the same PID. It is closed before the harness's cleanup runs (t.Cleanup is
// LIFO); its pods are not removed by the cleanup, the test must remove them.
func (h *harness) another(t *testing.T) *podlife.Runtime {
	t.Helper()
	return h.anotherWith(t, func(*podlife.Config) {})
}

// anotherWith is another, with the harness's configuration changed by edit first.
func (h *harness) anotherWith(t *testing.T, edit func(*podlife.Config)) *podlife.Runtime {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	cfg := h.cfg
	edit(&cfg)
	cfg.Logger = cfg.Logger.With("runtime", "another")
	rt, err := podlife.New(ctx, cfg)
	if err != nil {
		t.Fatalf("podlife.New (another runtime): %v", err)
	}
	t.Cleanup(func() { _ = rt.Close() }) // ErrClosed if the test closed it
	return rt
}

// cleanup removes every pod, then fails the test on anything left behind.
func (h *harness) cleanup() {
	t := h.t
	ctx, cancel := context.WithTimeout(context.Background(), budget(2*time.Minute))
	defer cancel()
	for _, p := range h.rt.Pods() {
		if err := p.Remove(ctx); err != nil {
			t.Errorf("remove pod %s: %v", p.Name(), err)
		}
	}
	nctx := namespaces.WithNamespace(ctx, h.ns)
	leaks, err := podlifetest.ContainerdLeaks(nctx, env.client, h.ns, h.keepImages...)
	if err != nil {
		t.Errorf("leak check: %v", err)
	}
	host, err := podlifetest.HostLeaks(h.stateDir, h.bridge.Bridge, h.bridge.Name, filepath.Join(h.stateDir, "cni", "ipam"))
	if err != nil {
		t.Errorf("host leak check: %v", err)
	}
	sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
	shims := podlifetest.ShimLeaks(sctx, h.ns)
	shims = append(shims, podlifetest.LoggerLeaks(sctx, h.stateDir)...)
	// What no shim answers for any more: a runc init or a container's process left in the
	// namespace's cgroups (its shim gone, or serving a task containerd does not know).
	shims = append(shims, podlifetest.CgroupProcessLeaks(sctx, h.ns)...)
	scancel()
	for name := range listSockets() {
		// A new socket nothing answers on is a leak; a live one belongs to a shim still running
		// (another package's test may run at the same time: go test runs packages in parallel).
		if path := filepath.Join(shimSocketDir, name); !h.sockets[name] && !settledLive(path) {
			shims = append(shims, "shim socket "+path)
		}
	}
	for _, l := range append(append(leaks, host...), shims...) {
		t.Errorf("leak: %s", l)
	}
	if entries, _ := os.ReadDir(filepath.Join(h.stateDir, "pods")); len(entries) > 0 {
		t.Errorf("leak: %d pod state dirs left under %s", len(entries), h.stateDir)
	}
	if t.Failed() || os.Getenv("PODLIFE_TEST_LOG") != "" {
		t.Logf("podlife log:\n%s", h.logs.String())
	}
	if err := h.network.Destroy(ctx); err != nil {
		t.Errorf("destroy bridge: %v", err)
	} else {
		env.subnets.give(h.subnet) // the bridge and its routes are gone: the next harness may take it
	}
	if _, err := os.Stat(filepath.Join(cni.BridgeClaimDir, h.bridge.Bridge+".json")); err == nil {
		t.Errorf("leak: bridge claim of %s", h.bridge.Bridge)
	}
	_ = os.Remove(filepath.Join(cni.BridgeClaimDir, h.bridge.Bridge+".lock")) // the test's own bridge name
	_ = h.rt.Close()
	is := env.client.ImageService()
	if imgs, err := is.List(nctx); err == nil {
		for _, i := range imgs {
			_ = is.Delete(nctx, i.Name, images.SynchronousDelete())
		}
	}
	_ = env.client.NamespaceService().Delete(nctx, h.ns)
	if err := podlifetest.RemoveNamespaceDirs(h.ns); err != nil {
		t.Errorf("leak: %v", err)
	}
	_ = os.RemoveAll(h.stateDir)
}

// lockedWriter is a log sink safe for the pod goroutines that outlive a call.
type lockedWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// uptime returns the host's /proc/uptime, the clock the test containers stamp their log lines with.
func uptime(t *testing.T) float64 {
	t.Helper()
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		t.Fatal(err)
	}
	var up float64
	fmt.Sscanf(string(b), "%f", &up)
	return up
}

// stampedLines parses a shared log whose lines are "<uptime> <who> <what>".
type stamped struct {
	at   float64
	who  string
	what string
}

func readStamped(t *testing.T, path string) []stamped {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("read %s: %v", path, err)
	}
	var out []stamped
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		var s stamped
		if _, err := fmt.Sscanf(f[0], "%f", &s.at); err != nil {
			continue
		}
		s.who, s.what = f[1], strings.Join(f[2:], " ")
		out = append(out, s)
	}
	return out
}

// waitStamped reads the shared log until it has a line of each of whos (the containers write
// their first line a moment after their process started), for at most budget(20 s).
func waitStamped(t *testing.T, path string, whos ...string) []stamped {
	t.Helper()
	deadline := time.Now().Add(budget(20 * time.Second))
	for {
		lines := readStamped(t, path)
		missing := ""
		for _, w := range whos {
			if _, ok := first(lines, w, ""); !ok {
				missing = w
			}
		}
		if missing == "" {
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line from %s in %s: %+v", missing, path, lines)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// first returns the first line of who (doing what, if what != "").
func first(lines []stamped, who, what string) (stamped, bool) {
	for _, l := range lines {
		if l.who == who && (what == "" || l.what == what) {
			return l, true
		}
	}
	return stamped{}, false
}

// stampCmd is a shell snippet appending "<uptime> who what" to file.
func stampCmd(file, who, what string) string {
	return fmt.Sprintf(`echo "$(cut -d' ' -f1 /proc/uptime) %s %s" >> %s`, who, what, file)
}

// waitEvent waits for an event of the pod matching reason (and container, if not empty).
func waitEvent(t *testing.T, ctx context.Context, p *podlife.Pod, container string, reason podlife.Reason) podlife.Event {
	t.Helper()
	return waitEventMatch(t, ctx, p, fmt.Sprintf("%s event for %q", reason, container), func(e podlife.Event) bool {
		return e.Reason == reason && (container == "" || e.Container == container)
	})
}

// waitEventMatch waits for an event of the pod (the recent ones included) that match accepts.
func waitEventMatch(t *testing.T, ctx context.Context, p *podlife.Pod, what string, match func(podlife.Event) bool) podlife.Event {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for e := range p.Subscribe(ctx) {
		if match(e) {
			return e
		}
	}
	t.Fatalf("no %s: %v", what, ctx.Err())
	return podlife.Event{}
}

func ptr[T any](v T) *T { return &v }

// budget scales an upper bound (a test's context, a wait, a timeout the test chose, the most an
// operation may cost) by the host's slowness, PODLIFE_TEST_SLOW (podlifetest.Budget): 1 on a
// developer's machine, more in an emulated VM (hack/vm). Lower bounds stay as they are.
func budget(d time.Duration) time.Duration { return podlifetest.Budget(d) }

// timeScale is PODLIFE_TEST_SLOW's factor (podlifetest.TimeScale), for a test that scales a
// window of its own (not a bound) to the host's speed.
func timeScale() int { return podlifetest.TimeScale() }
