package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	containerd "github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/images"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// The end-to-end tests join podlife nodes (this program, built by TestMain, each with its own
// containerd namespace, state dir, bridge and subnet on a private containerd) to a real
// control plane on 127.0.0.1, and drive them with kubectl only. No part of Kubernetes is faked.
//
// They need root, etcd (Debian's etcd-server) and the control plane binaries in
// PODLIFE_K8S_BIN (default /var/cache/podlife/k8s-v1.37.2; `make node-e2e` builds them); a
// missing one fails the run, it is never skipped.

const testImage = "podlife.test/busybox:1"

var env struct {
	dir     string
	runID   string
	subnetA int
	node    string // the podlife-node binary
	kubectl string
	daemon  *daemon.Daemon
	client  *containerd.Client
	logger  string
	archive []byte
	cp      *controlPlane
}

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Fprintln(os.Stderr, "node e2e: skipped with -short")
		os.Exit(m.Run())
	}
	code := func() int {
		if err := setup(); err != nil {
			fmt.Fprintln(os.Stderr, "node e2e setup failed:", err)
			teardown()
			return 1
		}
		defer teardown()
		return m.Run()
	}()
	os.Exit(code)
}

func setup() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("needs root (namespaces, mounts, CNI)")
	}
	bin := os.Getenv("PODLIFE_K8S_BIN")
	if bin == "" {
		bin = "/var/cache/podlife/k8s-v1.37.2"
	}
	for _, b := range []string{"kube-apiserver", "kube-scheduler", "kube-controller-manager", "kubectl"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			return fmt.Errorf("%v: build the control plane with `make node-e2e` (hack/build-control-plane.sh %s)", err, bin)
		}
	}
	env.kubectl = filepath.Join(bin, "kubectl")
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		return fmt.Errorf("etcd: %w (apt-get install etcd-server)", err)
	}
	var b [3]byte
	_, _ = rand.Read(b[:])
	env.runID = hex.EncodeToString(b[:])[:4]
	env.subnetA = 100 + int(b[2])%100
	if env.dir, err = os.MkdirTemp("", "pln-"); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	env.node = filepath.Join(env.dir, "podlife-node")
	build := exec.CommandContext(ctx, "go", "build", "-o", env.node, ".")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build podlife-node: %v\n%s", err, out)
	}
	ctrd, err := podlifetest.ContainerdBinary("../../.cache/bin/containerd")
	if err != nil {
		return err
	}
	env.daemon, err = daemon.Start(ctx, daemon.Config{Binary: ctrd, Dir: filepath.Join(env.dir, "ctrd"), LogFile: filepath.Join(env.dir, "containerd.log")})
	if err != nil {
		return err
	}
	if env.client, err = containerd.New(env.daemon.Address()); err != nil {
		return err
	}
	if env.logger, err = podlifetest.ContainerLogger(env.dir); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := podlifetest.BusyboxArchive(&buf, testImage); err != nil {
		return err
	}
	env.archive = buf.Bytes()
	cpDir := filepath.Join(env.dir, "k8s")
	if err := os.MkdirAll(cpDir, 0o700); err != nil {
		return err
	}
	start := time.Now()
	env.cp, err = startControlPlane(ctx, cpDir, bin, etcd)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "node e2e: control plane up in %v at %s, run %s\n", time.Since(start).Round(time.Millisecond), env.cp.server, env.runID)
	return nil
}

func teardown() {
	if env.cp != nil {
		if err := env.cp.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "node e2e: control plane:", err)
		}
	}
	if env.client != nil {
		env.client.Close()
	}
	if env.daemon != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_ = env.daemon.Stop(ctx)
		cancel()
	}
	if env.dir != "" && os.Getenv("PODLIFE_TEST_KEEP") == "" {
		_ = os.RemoveAll(env.dir)
	}
}

// kubectl runs kubectl against the control plane and returns its standard output.
func kubectl(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, env.kubectl, append([]string{"--kubeconfig", env.cp.kubeconfig}, args...)...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// mustKubectl is kubectl failing the test on an error.
func mustKubectl(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, err := kubectl(t, stdin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// testNode is a podlife-node process and what it runs on.
type testNode struct {
	name     string
	ns       string
	stateDir string
	bridge   cni.BridgeConfig
	// kubeconfig is the node's identity: a client certificate for system:node:NAME in
	// system:nodes, nothing more (the Node authorizer and NodeRestriction apply).
	kubeconfig string
	port       int // the kubelet API's, on 127.0.0.1
	cmd        *exec.Cmd
	done       chan struct{}
	log        string
	taint      string   // --taint, if any
	args       []string // more flags
}

var nodeCount int

// startNode imports the test image into a fresh namespace and starts a podlife-node on it,
// tainted podlife.io/node=true:NoSchedule; the cleanup stops it and removes everything it ran,
// failing the test on leaks.
func startNode(t *testing.T) *testNode {
	t.Helper()
	return startNodeWith(t, "podlife.io/node=true:NoSchedule")
}

// startNodeWith is startNode with taint as the node's taint (none if empty), and args as more
// flags of the node.
func startNodeWith(t *testing.T, taint string, args ...string) *testNode {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test: -short")
	}
	nodeCount++
	n := nodeCount
	tn := &testNode{
		name:     fmt.Sprintf("pln-%s-%d", env.runID, n),
		ns:       fmt.Sprintf("pln-%s-%d", env.runID, n),
		stateDir: filepath.Join(env.dir, fmt.Sprintf("n%d", n)),
		log:      filepath.Join(env.dir, fmt.Sprintf("node%d.log", n)),
		taint:    taint,
		args:     args,
	}
	tn.bridge = cni.BridgeConfig{
		Name:       fmt.Sprintf("pln%s%d", env.runID, n), // the node names its network after the bridge
		Bridge:     fmt.Sprintf("pln%s%d", env.runID, n),
		Subnet:     netip.MustParsePrefix(fmt.Sprintf("10.%d.%d.0/24", env.subnetA, 100+n)),
		StateDir:   filepath.Join(tn.stateDir, "cni"),
		PluginDirs: cniDirs(),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	nctx := namespaces.WithNamespace(ctx, tn.ns)
	if _, err := podlifetest.ImportBusybox(nctx, env.client, testImage); err != nil {
		t.Fatalf("import image: %v", err)
	}
	var err error
	if tn.kubeconfig, _, err = env.cp.clientKubeconfig(tn.name, "system:node:"+tn.name, "system:nodes"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tn.cleanup(t) })
	tn.start(t)
	// Registered and Ready.
	waitFor(t, "node "+tn.name+" Ready", 2*time.Minute, func() (bool, error) {
		out, err := kubectl(t, "", "get", "node", tn.name, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		return err == nil && out == "True", fmt.Errorf("%q %v", out, err)
	})
	return tn
}

// cniDirs are the CNI plugin directories: PODLIFE_CNI_PATH, else the repository's build.
func cniDirs() []string {
	if p := os.Getenv("PODLIFE_CNI_PATH"); p != "" {
		return filepath.SplitList(p)
	}
	dir, _ := filepath.Abs("../../.cache/cni/bin")
	return []string{dir}
}

// start starts the node process (again).
func (tn *testNode) start(t *testing.T) {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	tn.port = port
	f, err := os.OpenFile(tn.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	args := []string{
		"--kubeconfig", tn.kubeconfig, "--node-name", tn.name,
		"--node-ip", "127.0.0.1", "--listen", fmt.Sprintf("127.0.0.1:%d", port),
		"--client-ca", env.cp.clientCA,
		"--label", "podlife.io/e2e=" + env.runID,
		"--state-dir", tn.stateDir, "--containerd", env.daemon.Address(), "--namespace", tn.ns,
		"--container-logger", env.logger,
		"--bridge", tn.bridge.Bridge, "--subnet", tn.bridge.Subnet.String(),
		"--cni-path", strings.Join(tn.bridge.PluginDirs, string(filepath.ListSeparator)),
		"--log-level", "debug"}
	if tn.taint != "" {
		args = append(args, "--taint", tn.taint)
	}
	args = append(args, tn.args...)
	tn.cmd = exec.Command(env.node, args...)
	tn.cmd.Stdout, tn.cmd.Stderr = f, f
	tn.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := tn.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tn.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { _ = cmd.Wait(); close(done) }(tn.cmd, tn.done)
}

// stop ends the node process with SIGTERM (its pods keep running).
func (tn *testNode) stop(t *testing.T) {
	t.Helper()
	if tn.cmd == nil {
		return
	}
	_ = tn.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-tn.done:
	case <-time.After(30 * time.Second):
		_ = tn.cmd.Process.Kill()
		<-tn.done
		t.Errorf("node %s did not stop on SIGTERM", tn.name)
	}
	tn.cmd = nil
}

// cleanup stops the node, removes the pods left on it and its bridge, deletes the Node, and
// fails the test on anything left behind.
func (tn *testNode) cleanup(t *testing.T) {
	tn.stop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var logs bytes.Buffer
	rt, err := podlife.New(ctx, podlife.Config{Address: env.daemon.Address(), Namespace: tn.ns, StateDir: tn.stateDir,
		Bridge: tn.bridge, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Errorf("cleanup runtime: %v", err)
	} else {
		recs, _ := rt.ListPods(ctx)
		for _, r := range recs {
			t.Logf("removing pod %s left on node %s", r.Name, tn.name)
			p, err := rt.Pod(r.Name)
			if err == nil {
				err = p.Remove(ctx, podlife.WithGracePeriod(0))
			}
			if err != nil {
				t.Errorf("remove pod %s: %v", r.Name, err)
			}
		}
		_ = rt.Close()
	}
	if _, err := kubectl(t, "", "delete", "node", tn.name, "--ignore-not-found", "--wait=false"); err != nil {
		t.Log(err)
	}
	nctx := namespaces.WithNamespace(ctx, tn.ns)
	leaks, err := podlifetest.ContainerdLeaks(nctx, env.client, tn.ns, testImage)
	if err != nil {
		t.Errorf("leak check: %v", err)
	}
	if nw, err := cni.NewBridge(tn.bridge); err == nil {
		if err := nw.Destroy(ctx); err != nil {
			t.Errorf("destroy bridge: %v", err)
		}
	}
	host, err := podlifetest.HostLeaks(tn.stateDir, tn.bridge.Bridge, tn.bridge.Name, filepath.Join(tn.stateDir, "cni", "ipam"))
	if err != nil {
		t.Errorf("host leak check: %v", err)
	}
	for _, l := range append(leaks, host...) {
		t.Errorf("leak: %s", l)
	}
	is := env.client.ImageService()
	if imgs, err := is.List(nctx); err == nil {
		for _, i := range imgs {
			_ = is.Delete(nctx, i.Name, images.SynchronousDelete())
		}
	}
	_ = env.client.NamespaceService().Delete(nctx, tn.ns)
	_ = podlifetest.RemoveNamespaceDirs(tn.ns)
	if t.Failed() {
		b, _ := os.ReadFile(tn.log)
		t.Logf("node %s log (last 16 KiB):\n%s", tn.name, tail(b, 16<<10))
		for _, p := range env.cp.procs {
			b, _ := os.ReadFile(p.log)
			t.Logf("%s log (last 4 KiB):\n%s", p.name, tail(b, 4<<10))
		}
	}
	_ = os.RemoveAll(tn.stateDir)
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// podJSON returns a pod as the API server has it.
type podJSON struct {
	Spec struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
	Status struct {
		Phase      string `json:"phase"`
		PodIP      string `json:"podIP"`
		HostIP     string `json:"hostIP"`
		Conditions []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"conditions"`
		ContainerStatuses []struct {
			Name         string `json:"name"`
			Ready        bool   `json:"ready"`
			RestartCount int    `json:"restartCount"`
			ContainerID  string `json:"containerID"`
			State        struct {
				Running *struct {
					StartedAt string `json:"startedAt"`
				} `json:"running"`
			} `json:"state"`
		} `json:"containerStatuses"`
	} `json:"status"`
}

func getPod(t *testing.T, ns, name string) podJSON {
	t.Helper()
	var p podJSON
	if err := json.Unmarshal([]byte(mustKubectl(t, "", "-n", ns, "get", "pod", name, "-o", "json")), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// scheduling is the part of the test pods' spec that lands them on a podlife node.
func scheduling(node string) string {
	return fmt.Sprintf(`  nodeSelector:
    podlife.io/node: "true"
    kubernetes.io/hostname: %s
  tolerations:
  - key: podlife.io/node
    operator: Exists
    effect: NoSchedule
  automountServiceAccountToken: false
`, node)
}

// uptime is the shell command that appends "UPTIME WHO WHAT" to file: the containers' own
// timestamps, on the host's monotonic clock.
func uptime(file, who, what string) string {
	return fmt.Sprintf(`echo "$(cut -d' ' -f1 /proc/uptime) %s %s" >> %s`, who, what, file)
}

// waitGone waits until kubectl no longer finds the pod.
func waitGone(t *testing.T, ns, pod string, timeout time.Duration) {
	t.Helper()
	mustKubectl(t, "", "-n", ns, "wait", "--for=delete", "pod/"+pod, fmt.Sprintf("--timeout=%ds", int(timeout.Seconds())))
}
