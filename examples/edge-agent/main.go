// Command edge-agent is the kubelet's static pods (--pod-manifest-path) as a podlife program:
// it watches a directory of Pod manifests and keeps the host's pods equal to it. A new
// manifest is run, a changed one replaced (its pods stopped with their grace period and
// removed, then run again), a removed one stopped and removed; a manifest that fails to load
// is reported and changes nothing. Status is written to the directory's .status/ and, with
// --listen, served on 127.0.0.1.
//
// On SIGTERM or SIGINT it exits and leaves its pods running (--stop-pods-on-exit removes
// them); started again, it finds its pods and adopts them without restarting them.
// See README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/containerlogger"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/kube"
	"github.com/podlife/podlife/podlife/podsecurity"
)

const usage = `usage: edge-agent --manifests DIR [flags]

Keeps this host's pods equal to the Pod manifests in DIR (the kubelet's --pod-manifest-path).
Flags:
`

func main() {
	// containerd's shims run this program as the containers' logger when no podlife-logger is
	// found (see podlife.Config.ContainerLogger): their output keeps flowing without the agent.
	if containerlogger.Invoked() {
		containerlogger.Serve()
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

// options are the command line.
type options struct {
	manifests, stateDir, agentDir, address string
	namespace                              string
	network, bridge, subnet, cniPath       string
	nodeName                               string
	noNodeSuffix, stopOnExit, strict       bool
	prewarm                                int
	privateContainerd                      bool
	allowPrivileged, allowHostNamespaces   bool
	interval, pullBackoff, retry           time.Duration
	listen, containerLogger, logLevel      string
	execGate                               string
	imports                                []string
	podSecurity                            string
	allowedCapabilities                    []string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("edge-agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	host, _ := os.Hostname()
	fs.StringVar(&o.manifests, "manifests", "", "the directory of Pod manifests (required)")
	fs.StringVar(&o.stateDir, "state-dir", "", "podlife's state directory (default /var/lib/podlife)")
	fs.StringVar(&o.agentDir, "agent-dir", "/var/lib/podlife-edge-agent", "the agent's own state: which pods are its own, from which manifest")
	fs.StringVar(&o.address, "address", "", "containerd socket (default: the system's, else a private containerd of the state dir)")
	fs.BoolVar(&o.privateContainerd, "private-containerd", daemon.PrivateFromEnv(), "use the private containerd of the state dir (started if none runs) even when the system one answers (default $"+daemon.PrivateEnv+")")
	fs.StringVar(&o.namespace, "namespace", "", "containerd namespace of the pods (default podlife)")
	fs.StringVar(&o.network, "network", "", "CNI network name (default podlife)")
	fs.StringVar(&o.bridge, "bridge", "", "bridge device (default podlife0)")
	fs.StringVar(&o.subnet, "subnet", "", "pod subnet (default 10.88.0.0/16)")
	fs.StringVar(&o.cniPath, "cni-path", os.Getenv("PODLIFE_CNI_PATH"), "CNI plugin directories, separated by ':' (default $PODLIFE_CNI_PATH, else /opt/cni/bin, /usr/lib/cni, /usr/libexec/cni)")
	short, _, _ := strings.Cut(host, ".")
	fs.StringVar(&o.nodeName, "node-name", short, "node name the pods' names are suffixed with, in lower case, as the kubelet names static pods (<name>-<node>); default the hostname's first label")
	fs.BoolVar(&o.noNodeSuffix, "no-node-suffix", false, "name the pods as their manifests do, without the node name")
	fs.DurationVar(&o.interval, "interval", 10*time.Second, "how often the directory is read besides its inotify events (the kubelet's --file-check-frequency)")
	fs.DurationVar(&o.pullBackoff, "image-pull-backoff", 10*time.Second, "first back-off of a failed image pull (doubling up to 5 min); the pod waits for its image")
	fs.DurationVar(&o.retry, "retry", 10*time.Second, "first back-off of a pod whose start failed (doubling up to 5 min)")
	fs.IntVar(&o.prewarm, "prewarm", 0, "keep this many warm pool members (sandbox made, containers created, not started) of each manifest's pod, so that a pod run again starts in milliseconds (docs/warm-pool.md); 0: none")
	fs.BoolVar(&o.stopOnExit, "stop-pods-on-exit", false, "on SIGTERM/SIGINT, stop and remove the agent's pods (default: leave them running)")
	fs.BoolVar(&o.allowPrivileged, "allow-privileged", false, "let pods run privileged containers (the kubelet's --allow-privileged)")
	fs.BoolVar(&o.allowHostNamespaces, "allow-host-namespaces", false, "let pods use hostPID and hostIPC")
	fs.StringVar(&o.podSecurity, "pod-security", string(podsecurity.Baseline), `Pod Security Standards level pods must meet: "privileged", "baseline" or "restricted"`)
	fs.Func("allowed-capabilities", "comma-separated capabilities containers may add beyond the baseline set, at any --pod-security level", func(s string) error {
		for _, c := range strings.Split(s, ",") {
			if c = strings.TrimSpace(c); c != "" {
				o.allowedCapabilities = append(o.allowedCapabilities, c)
			}
		}
		return nil
	})
	fs.BoolVar(&o.strict, "strict", false, "refuse manifests with fields podlife does not honour (warnings by default)")
	fs.StringVar(&o.listen, "listen", "", "serve the status on this loopback address, e.g. 127.0.0.1:10255 (GET /status, /healthz, /metrics)")
	fs.StringVar(&o.execGate, "exec-gate", "", "with --prewarm: the exec gate program (podlife-execgate, statically linked): members' containers wait in it with their tasks running, so that a warm start is a write per container rather than a task start (podlife.Config.ExecGate, docs/warm-pool.md)")
	fs.StringVar(&o.containerLogger, "container-logger", "", `the containers' logger program (default: podlife-logger beside this program or in PATH, else this program; "none": the agent writes the logs)`)
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.Func("import", "import an image archive (OCI or docker save) at start; repeatable", func(s string) error {
		o.imports = append(o.imports, s)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case o.manifests == "":
		fs.Usage()
		return o, errors.New("--manifests is required")
	case fs.NArg() > 0:
		fs.Usage()
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.privateContainerd && o.address != "" {
		return o, errors.New("--private-containerd and --address exclude each other")
	}
	if o.prewarm < 0 || o.prewarm > podlife.MaxPoolMembers {
		return o, fmt.Errorf("--prewarm must be between 0 and %d", podlife.MaxPoolMembers)
	}
	if o.interval <= 0 || o.pullBackoff <= 0 || o.retry <= 0 {
		return o, errors.New("--interval, --image-pull-backoff and --retry must be positive")
	}
	return o, nil
}

// run is the agent's main: it returns the exit code.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "edge-agent:", err)
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		fmt.Fprintln(stderr, "edge-agent: --log-level:", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if err := serve(ctx, o, log); err != nil {
		log.Error("exit", "err", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, o options, log *slog.Logger) error {
	manifests, err := trustedManifestDir(o.manifests) // trust.go
	if err != nil {
		return err
	}
	var listener net.Listener
	if o.listen != "" {
		if listener, err = listenLoopback(o.listen); err != nil {
			return err
		}
		defer listener.Close()
	}
	records, err := newRecordStore(o.agentDir)
	if err != nil {
		return err
	}
	lock, err := lockAgentDir(o.agentDir)
	if err != nil {
		return err
	}
	defer lock.Close()
	cfg := podlife.Config{
		Address:             o.address,
		Namespace:           o.namespace,
		StateDir:            o.stateDir,
		Logger:              log.With("component", "podlife"),
		ImagePullBackOff:    &podlife.Backoff{Initial: o.pullBackoff},
		AllowPrivileged:     o.allowPrivileged,
		AllowHostNamespaces: o.allowHostNamespaces,
		PodSecurity:         podsecurity.Level(o.podSecurity),
		AllowedCapabilities: o.allowedCapabilities,
	}
	cfg.Bridge.Name, cfg.Bridge.Bridge = o.network, o.bridge
	if o.cniPath != "" {
		cfg.Bridge.PluginDirs = filepath.SplitList(o.cniPath)
	}
	if o.subnet != "" {
		if cfg.Bridge.Subnet, err = netip.ParsePrefix(o.subnet); err != nil {
			return fmt.Errorf("--subnet: %w", err)
		}
	}
	if o.execGate != "" {
		if cfg.ExecGate, err = filepath.Abs(o.execGate); err != nil {
			return err
		}
	}
	switch o.containerLogger {
	case "none":
	case "":
		cfg.ContainerLogger = containerLogger()
	default:
		if cfg.ContainerLogger, err = filepath.Abs(o.containerLogger); err != nil {
			return err
		}
	}

	// The private containerd of the state dir (started if none runs, and again if it dies)
	// whether or not a system one answers. podlife's log warns about a system (or --address)
	// containerd older than 2.0, with what to install, once at New.
	cfg.Embedded.IgnoreSystem = o.privateContainerd
	rt, err := podlife.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer rt.Close()
	for _, path := range o.imports {
		if err := importImage(ctx, rt, path); err != nil {
			return err
		}
	}

	suffix := "-" + strings.ToLower(o.nodeName)
	if o.noNodeSuffix || o.nodeName == "" {
		suffix = ""
	}
	status := newStatusWriter(manifests, log)
	removeInfo, err := status.writeAgent(agentInfo{PID: os.Getpid(), StartedAt: time.Now().UTC(), Node: o.nodeName})
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	defer removeInfo()
	a := newAgent(rt, agentConfig{
		source:     &source{dir: manifests, opts: kube.Options{Strict: o.strict}, suffix: suffix},
		records:    records,
		status:     status,
		interval:   o.interval,
		retry:      podlife.Backoff{Initial: o.retry, Max: 5 * time.Minute},
		stopOnExit: o.stopOnExit,
		log:        log,
		prewarm:    newPrewarmer(rt, o.prewarm, log),
	})
	if listener != nil {
		srv := &http.Server{Handler: withMetrics(status, podMetrics(ctx, rt)), ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(listener) //nolint:errcheck // ends with ErrServerClosed
		defer srv.Close()
		log.Info("serving status", "addr", listener.Addr().String())
	}
	log.Info("watching", "dir", manifests, "interval", o.interval, "suffix", suffix)
	return a.run(ctx)
}

// listenLoopback listens on addr, which must be a loopback address: the status has no
// authentication.
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--listen: %w", err)
	}
	if ip, err := netip.ParseAddr(host); host != "localhost" && (err != nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("--listen %s: not a loopback address (the status is served without authentication)", addr)
	}
	return net.Listen("tcp", addr)
}

func importImage(ctx context.Context, rt *podlife.Runtime, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--import: %w", err)
	}
	defer f.Close()
	if _, err := rt.ImportImage(ctx, f); err != nil {
		return fmt.Errorf("--import %s: %w", path, err)
	}
	return nil
}

// containerLogger returns podlife-logger beside this program or in PATH, else this program.
func containerLogger() string {
	self, _ := os.Executable()
	if self != "" {
		if p := filepath.Join(filepath.Dir(self), "podlife-logger"); isExecutable(p) {
			return p
		}
	}
	if p, err := exec.LookPath("podlife-logger"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return self
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}
