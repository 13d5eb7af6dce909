package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/core/images"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/cnipath"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// Markers around the README's quick start in main.go.
const (
	beginMarker = "// quick start: begin\n"
	endMarker   = "// quick start: end\n"
)

// The README's quick start must be main.go's code between the markers, byte for byte, so that
// what the README shows is what TestQuickstart runs.
func TestReadmeIsMainGo(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(src), beginMarker)
	if !ok {
		t.Fatalf("main.go has no %q line", strings.TrimSpace(beginMarker))
	}
	code, _, ok := strings.Cut(rest, endMarker)
	if !ok {
		t.Fatalf("main.go has no %q line after the begin marker", strings.TrimSpace(endMarker))
	}
	code = strings.Trim(code, "\n")

	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Quick start\n")
	if !ok {
		t.Fatal(`README.md has no "## Quick start" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "\n```go\n")
	if !ok {
		t.Fatal("README.md's quick start has no ```go block")
	}
	block, _, ok = strings.Cut(block, "\n```\n")
	if !ok {
		t.Fatal("README.md's quick start Go block is not closed")
	}
	if block != code {
		t.Errorf("README.md's quick start differs from examples/quickstart/main.go between the markers; "+
			"copy main.go's text into the README.\nfirst difference at line %d:\nREADME:  %q\nmain.go: %q",
			firstDiff(block, code)+1, lineAt(block, firstDiff(block, code)), lineAt(code, firstDiff(block, code)))
	}
}

func firstDiff(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i
		}
	}
	return min(len(al), len(bl))
}

func lineAt(s string, i int) string {
	lines := strings.Split(s, "\n")
	if i < len(lines) {
		return lines[i]
	}
	return "<end>"
}

// TestQuickstart runs the program's run against a private containerd, in a namespace, state dir
// and bridge of its own: once to the end, and once interrupted (as by Ctrl-C) after the pod
// started. Both times the pod must be gone afterwards, with nothing left behind.
func TestQuickstart(t *testing.T) {
	bin := containerdBinary(t)
	var b [3]byte
	_, _ = rand.Read(b[:])
	runID := hex.EncodeToString(b[:])[:5]
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ctrd, err := podlifetest.StartContainerd(ctx, daemon.Config{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := ctrd.Close(); err != nil {
			t.Error(err)
		}
	}()

	// env is one subtest's containerd namespace, state dir and network.
	type env struct {
		cfg    podlife.Config
		ns     string
		bridge *cni.Bridge
	}
	newEnv := func(t *testing.T, n int) env {
		ns := fmt.Sprintf("plqs-%s-%d", runID, n)
		stateDir := filepath.Join(ctrd.Dir(), fmt.Sprintf("s%d", n))
		bc := cni.BridgeConfig{
			Name:     ns,
			Bridge:   fmt.Sprintf("plqs%s%d", runID, n),
			Subnet:   netip.MustParsePrefix(fmt.Sprintf("10.%d.%d.0/24", 30+int(b[2])%10, 16*n+int(b[1])%16)),
			StateDir: filepath.Join(stateDir, "cni"),
			// The plugins pinned in go.mod, which `make` builds; else the system's.
			PluginDirs: cnipath.Dirs(filepath.Join("..", "..", ".cache", "cni", "bin")),
		}
		br, err := cni.NewBridge(bc)
		if err != nil {
			t.Fatal(err)
		}
		e := env{ns: ns, bridge: br, cfg: podlife.Config{
			Address:   ctrd.Daemon.Address(),
			Namespace: ns,
			StateDir:  stateDir,
			Network:   br,
			Bridge:    bc,
		}}
		t.Cleanup(func() { checkLeftovers(t, ctrd, e.cfg, e.bridge) })
		return e
	}

	t.Run("to the end", func(t *testing.T) {
		e := newEnv(t, 1)
		var out bytes.Buffer
		start := time.Now()
		if err := run(ctx, e.cfg, &out); err != nil {
			t.Fatalf("run: %v\noutput:\n%s", err, out.String())
		}
		t.Logf("run took %v", time.Since(start).Round(time.Millisecond))
		m := regexp.MustCompile(`^pod IP: (\S+)\nfrom the pod: hello from the pod\n$`).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("output:\n%s\nwant the pod IP and the page's line", out.String())
		}
		if ip, err := netip.ParseAddr(m[1]); err != nil || !e.cfg.Bridge.Subnet.Contains(ip) {
			t.Errorf("pod IP %q is not in the pod subnet %s", m[1], e.cfg.Bridge.Subnet)
		}
	})

	t.Run("interrupted", func(t *testing.T) {
		e := newEnv(t, 2)
		// Cancel as Ctrl-C would, once the pod is running: when run prints its IP.
		ictx, interrupt := context.WithCancel(ctx)
		defer interrupt()
		out := &cancelWriter{cancel: interrupt}
		err := run(ictx, e.cfg, out)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("run after an interrupt: %v, want context.Canceled\noutput:\n%s", err, out.String())
		}
		if !strings.HasPrefix(out.String(), "pod IP: ") || strings.Contains(out.String(), "from the pod") {
			t.Errorf("output:\n%s\nwant only the pod IP", out.String())
		}
	})
}

// cancelWriter collects the output and calls cancel on the first write.
type cancelWriter struct {
	mu     sync.Mutex
	b      bytes.Buffer
	cancel func()
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cancel()
	return w.b.Write(p)
}

func (w *cancelWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// containerdBinary returns the containerd to test with (PODLIFE_TEST_CONTAINERD, else the
// repository's .cache/bin/containerd, else containerd in PATH), or skips the test.
func containerdBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("integration test: needs root")
	}
	bin, err := podlifetest.ContainerdBinary(filepath.Join("..", "..", ".cache", "bin", "containerd"))
	if err != nil {
		t.Skip("integration test: ", err)
	}
	return bin
}

// checkLeftovers fails the test on anything the run left in containerd or on the host (pods are
// removed by run itself, so nothing but the imported image may be left), then removes the
// network, the image and the namespace.
func checkLeftovers(t *testing.T, ctrd *podlifetest.Containerd, cfg podlife.Config, br *cni.Bridge) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	nctx := namespaces.WithNamespace(ctx, cfg.Namespace)
	leaks, err := podlifetest.ContainerdLeaks(nctx, ctrd.Client, cfg.Namespace, "podlife.local/busybox:1")
	if err != nil {
		t.Errorf("leak check: %v", err)
	}
	host, err := podlifetest.HostLeaks(cfg.StateDir, cfg.Bridge.Bridge, cfg.Bridge.Name, filepath.Join(cfg.Bridge.StateDir, "ipam"))
	if err != nil {
		t.Errorf("host leak check: %v", err)
	}
	sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
	shims := podlifetest.ShimLeaks(sctx, cfg.Namespace)
	scancel()
	for _, l := range append(append(leaks, host...), shims...) {
		t.Errorf("leak: %s", l)
	}
	if entries, _ := os.ReadDir(filepath.Join(cfg.StateDir, "pods")); len(entries) > 0 {
		t.Errorf("leak: %d pod state dirs left under %s", len(entries), cfg.StateDir)
	}
	if err := br.Destroy(ctx); err != nil {
		t.Errorf("destroy bridge: %v", err)
	}
	is := ctrd.Client.ImageService()
	if imgs, err := is.List(nctx); err == nil {
		for _, i := range imgs {
			_ = is.Delete(nctx, i.Name, images.SynchronousDelete())
		}
	}
	_ = ctrd.Client.NamespaceService().Delete(nctx, cfg.Namespace)
	if err := podlifetest.RemoveNamespaceDirs(cfg.Namespace); err != nil {
		t.Errorf("leak: %v", err)
	}
}
