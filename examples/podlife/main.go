// Command podlife runs Kubernetes Pod manifests on this host with podlife, and manages them
// from any process, like a small kubectl without a cluster:
//
//	podlife run -f pod.yaml [-f configmap.yaml] [--detach] [-o json] [--logs] [--timeline start.svg]
//	podlife ps [-o json|wide]
//	podlife top [POD] [--containers] [--window DURATION]
//	podlife logs [-f] [--previous] POD [CONTAINER]
//	podlife exec [-i] [-t] POD CONTAINER -- CMD [ARG...]
//	podlife debug POD --image IMAGE [-i] [-t] [--target CONTAINER] [--name NAME] [-- CMD [ARG...]]
//	podlife stop [--grace-period SECONDS] [--parallel N] POD...
//	podlife rm [--grace-period SECONDS] [--parallel N] POD...
//	podlife image import FILE...
//	podlife image ls
//	podlife daemon status|stop
//
// run works in the foreground like `docker compose up`: it prints the pods' events and a
// kubectl-like READY/STATUS/RESTARTS/AGE line whenever it changes, stops the pods gracefully
// (preStop, grace period) on Ctrl-C or SIGTERM, and exits 0 if every pod succeeded, 1 otherwise.
// With --detach the pods are supervised by a background podlife process, and the other
// commands, run from any process, find them again in the state directory and containerd.
//
// It needs root. It uses the system containerd if one answers (--private-containerd, or
// PODLIFE_PRIVATE_CONTAINERD=1, skips it), else the private one of the state directory, which
// the first command that needs it starts and which outlives every command: `podlife daemon
// status` shows it (PID, socket, log file), `podlife daemon stop` stops it once no pod is left.
// Every manifest field podlife cannot honour is reported (--strict makes warnings errors).
//
// The containers' output is written to their log files by a logger that containerd's shim runs
// beside each container, so that it keeps flowing when the supervising process dies: the
// podlife-logger program if it is beside this one or in PATH (`go build -o DIR/podlife-logger
// ./internal/cmd/podlife-logger`), else this program itself, which is larger (`run
// --container-logger` chooses).
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/containerlogger"
	"github.com/podlife/podlife/podlife/daemon"
)

const usage = `usage:
  podlife run -f FILE [-f FILE ...] [--detach] [--strict] [-o json] [--logs] [--timeline FILE.svg]
              [--container-logger PATH|none]
              [--import ARCHIVE] [--busybox REF] [--restart-backoff DURATION] [--image-pull-backoff DURATION]
  podlife ps [-o json|wide]
  podlife top [POD] [--containers] [--window DURATION]
  podlife logs [-f] [--previous] POD [CONTAINER]
  podlife exec [-i] [-t] POD CONTAINER -- CMD [ARG...]
  podlife debug POD --image IMAGE [-i] [-t] [--target CONTAINER] [--name NAME] [--image-pull-policy POLICY] [-- CMD [ARG...]]
  podlife stop [--grace-period SECONDS] [--parallel N] POD...
  podlife rm [--grace-period SECONDS] [--parallel N] POD...
  podlife condition [--reason REASON] [--message MESSAGE] POD TYPE=True|False|Unknown
  podlife image import FILE...
  podlife image ls
  podlife daemon status|stop [--timeout DURATION]
Every command takes --state-dir DIR, --network NAME, --bridge NAME, --subnet CIDR, -v and
--private-containerd (the state dir's containerd even when the system one answers).`

func main() {
	// containerd's shim runs this same program as each container's logger (see
	// podlife.Config.ContainerLogger), so that the output of the pods keeps being written when
	// the process that supervises them is gone.
	if containerlogger.Invoked() {
		containerlogger.Serve()
	}
	os.Exit(cli(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// cli runs one command and returns the process's exit code.
func cli(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "run":
		return run(args, stdout, stderr)
	case "ps":
		return ps(ctx, args, stdout, stderr)
	case "top":
		return top(ctx, args, stdout, stderr)
	case "logs":
		return logsCmd(ctx, args, stdout, stderr)
	case "exec":
		return execCmd(ctx, args, stdin, stdout, stderr)
	case "debug":
		return debugCmd(ctx, args, stdin, stdout, stderr)
	case "stop", "rm":
		return stopCmd(ctx, cmd, args, stdout, stderr)
	case "condition":
		return conditionCmd(ctx, args, stdout, stderr)
	case "image":
		return imageCmd(ctx, args, stdout, stderr)
	case "daemon":
		return daemonCmd(ctx, args, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "podlife: unknown command %q\n%s\n", cmd, usage)
	return 2
}

// common are the flags every command takes: where the state is and how pods are networked.
type common struct {
	stateDir, network, bridge, subnet, cniPath string
	verbose, private                           bool
}

func addCommon(fs *flag.FlagSet) *common {
	c := &common{}
	fs.StringVar(&c.stateDir, "state-dir", "", "podlife state directory (default /var/lib/podlife)")
	fs.StringVar(&c.network, "network", "", "CNI network name (default podlife, or what `run` used)")
	fs.StringVar(&c.bridge, "bridge", "", "bridge device of the pod network (default podlife0, or what `run` used)")
	fs.StringVar(&c.subnet, "subnet", "", "pod subnet (default 10.88.0.0/16, or what `run` used)")
	fs.StringVar(&c.cniPath, "cni-path", "", "CNI plugin directories, ':'-separated (default what `run` used, "+
		"else $PODLIFE_CNI_PATH, else /opt/cni/bin, /usr/lib/cni and /usr/libexec/cni)")
	fs.BoolVar(&c.verbose, "v", false, "log podlife's debug output to stderr")
	fs.BoolVar(&c.private, "private-containerd", daemon.PrivateFromEnv(), "use the private containerd of the state dir (started if none runs) even when the system one answers; "+
		"give it to every command (default $"+daemon.PrivateEnv+")")
	return c
}

// networkFile keeps the network flags `run` used, so that the other commands (which may have to
// release a pod's network) use the same network without repeating them.
func (c *common) networkFile() string { return c.stateFile("cli-network.json") }

// stateFile is a file of the CLI's own in the state dir.
func (c *common) stateFile(name string) string {
	dir := c.stateDir
	if dir == "" {
		dir = podlife.DefaultStateDir
	}
	_ = os.MkdirAll(dir, 0o700)
	return filepath.Join(dir, name)
}

type networkFlags struct {
	Network string `json:"network,omitempty"`
	Bridge  string `json:"bridge,omitempty"`
	Subnet  string `json:"subnet,omitempty"`
	CNIPath string `json:"cniPath,omitempty"`
}

func (c *common) saveNetwork() error {
	b, err := json.Marshal(networkFlags{Network: c.network, Bridge: c.bridge, Subnet: c.subnet, CNIPath: c.cniPath})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.networkFile()), 0o700); err != nil {
		return err
	}
	return os.WriteFile(c.networkFile(), b, 0o600)
}

// fillSavedNetwork fills each network flag not given from the ones `run` saved, flag by flag:
// --subnet alone keeps the saved network name, bridge and plugin dirs.
func (c *common) fillSavedNetwork() {
	var saved networkFlags
	b, err := os.ReadFile(c.networkFile())
	if err != nil || json.Unmarshal(b, &saved) != nil {
		return
	}
	for _, f := range []struct {
		flag  *string
		saved string
	}{
		{&c.network, saved.Network}, {&c.bridge, saved.Bridge}, {&c.subnet, saved.Subnet}, {&c.cniPath, saved.CNIPath},
	} {
		if *f.flag == "" {
			*f.flag = f.saved
		}
	}
}

// runtime connects to containerd (the system one, or the private one under the state dir).
func (c *common) runtime(ctx context.Context, stderr io.Writer, opts ...func(*podlife.Config)) (*podlife.Runtime, error) {
	c.fillSavedNetwork()
	if c.cniPath == "" {
		c.cniPath = os.Getenv("PODLIFE_CNI_PATH") // `make` points it at the plugins pinned in go.mod
	}
	logger := slog.New(slog.DiscardHandler)
	if c.verbose {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	cfg := podlife.Config{StateDir: c.stateDir, Logger: logger}
	cfg.ContainerLogger = containerLogger()
	cfg.Bridge.Name, cfg.Bridge.Bridge = c.network, c.bridge
	cfg.Bridge.PluginDirs = filepath.SplitList(c.cniPath)
	if c.subnet != "" {
		var err error
		if cfg.Bridge.Subnet, err = netip.ParsePrefix(c.subnet); err != nil {
			return nil, fmt.Errorf("--subnet: %w: %w", err, errUsage)
		}
	}
	// The private containerd of the state dir (started if none runs, and again if it dies)
	// whether or not a system one answers.
	cfg.Embedded.IgnoreSystem = c.private
	for _, o := range opts {
		o(&cfg)
	}
	rt, err := podlife.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// Once per command, on stderr: a containerd older than 2.0, and what to install. With -v,
	// podlife's own log (on stderr) has warned about a system one already.
	addr := cmp.Or(cfg.Address, podlife.DefaultAddress)
	if rt.PrivateDaemon() {
		addr = daemon.Address(daemon.PrivateDir(cmp.Or(c.stateDir, podlife.DefaultStateDir)))
	}
	if !c.verbose || rt.PrivateDaemon() {
		warn := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		_ = daemon.WarnUnsupported(ctx, warn, addr)
	}
	return rt, nil
}

// containerLogger returns the program containerd's shims run beside each container to write
// its output: podlife-logger beside this program or in PATH (a small program: 0.8 MiB PSS per
// container), else this program itself (see main; 3.5 MiB PSS per container, as it is larger).
func containerLogger() string {
	self, err := os.Executable()
	if err != nil {
		self = ""
	}
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

// fail prints err as the command's error and returns exit code 1 (2 for usage errors).
func fail(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "podlife %s: %v\n", cmd, err)
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}

var errUsage = errors.New("usage")
