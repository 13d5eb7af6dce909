package podlife

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/internal/restart"
	"github.com/podlife/podlife/podlife/daemon"
)

// Runtime runs pods on one containerd. It is safe for concurrent use. Close it when done: pods
// keep running (their containers belong to containerd), and a private containerd started by New
// is stopped.
type Runtime struct {
	cfg     Config
	client  *client.Client
	address string // the containerd socket in use
	daemon  *daemon.Daemon
	network cni.Network
	log     *slog.Logger
	events  *bus
	clock   clock.Clock
	backoff *restart.Tracker
	control *control
	closing chan struct{} // closed by Close

	mu     sync.Mutex
	pods   map[string]*Pod
	closed bool
}

// New connects to containerd (starting a private one if Config says so) and prepares the state
// directory and the pod network.
func New(ctx context.Context, cfg Config) (*Runtime, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("podlife: state dir: %w", err)
	}
	r := &Runtime{cfg: cfg, log: cfg.Logger, pods: map[string]*Pod{}, events: newBus(nil), clock: clock.Real{}, closing: make(chan struct{})}
	r.control = newControl(r)
	r.backoff = restart.New(restart.Config{Initial: cfg.Backoff.Initial, Max: cfg.Backoff.Max, ResetAfter: cfg.Backoff.ResetAfter}, r.clock)
	r.events.ring = nil // the runtime bus only fans out; pods keep their own history
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	r.network = cfg.Network
	if r.network == nil {
		b, err := cni.NewBridge(cfg.Bridge)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("podlife: network: %w", err)
		}
		r.network = b
	}
	return r, nil
}

// connect dials containerd: the configured address, or the system socket, or a private daemon.
func (r *Runtime) connect(ctx context.Context) error {
	addr := r.cfg.Address
	explicit := addr != ""
	if !explicit {
		addr = DefaultAddress
	}
	c, err := dial(ctx, addr, r.cfg.Namespace)
	if err == nil {
		r.client, r.address = c, addr
		return nil
	}
	if explicit || r.cfg.Embedded.Disable {
		return fmt.Errorf("podlife: containerd at %s: %w", addr, err)
	}
	// A private containerd another process started on this state dir (a CLI's background
	// supervisor): use it, and leave it running on Close.
	dir := filepath.Join(r.cfg.StateDir, "containerd")
	if c, err := dial(ctx, daemon.Address(dir), r.cfg.Namespace); err == nil {
		r.client, r.address = c, daemon.Address(dir)
		return nil
	}
	bin := r.cfg.Embedded.Binary
	if bin == "" {
		if bin, err = exec.LookPath("containerd"); err != nil {
			return fmt.Errorf("podlife: no containerd answers at %s and no containerd binary is installed to start one: %w", addr, err)
		}
	}
	r.log.Info("starting a private containerd", "binary", bin, "dir", dir)
	d, err := daemon.Start(ctx, daemon.Config{Binary: bin, Dir: dir, Logger: r.log})
	if err != nil {
		return fmt.Errorf("podlife: starting a private containerd: %w", err)
	}
	c, err = dial(ctx, d.Address(), r.cfg.Namespace)
	if err != nil {
		_ = d.Stop(context.Background())
		return fmt.Errorf("podlife: private containerd: %w", err)
	}
	r.client, r.daemon, r.address = c, d, d.Address()
	return nil
}

func dial(ctx context.Context, addr, ns string) (*client.Client, error) {
	if _, err := os.Stat(addr); err != nil {
		return nil, err
	}
	c, err := client.New(addr, client.WithDefaultNamespace(ns), client.WithTimeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if ok, err := c.IsServing(ctx); !ok {
		c.Close()
		return nil, fmt.Errorf("not serving: %w", err)
	}
	return c, nil
}

// Client returns the containerd client the runtime uses (for inspection; do not close it).
func (r *Runtime) Client() *client.Client { return r.client }

// PrivateDaemon reports whether the runtime started a private containerd, which Close stops:
// pods of other processes using the same state dir would lose it then.
func (r *Runtime) PrivateDaemon() bool { return r.daemon != nil }

// Namespace returns the containerd namespace of podlife's objects.
func (r *Runtime) Namespace() string { return r.cfg.Namespace }

// Network returns the network pods are attached to.
func (r *Runtime) Network() cni.Network { return r.network }

// ctx returns a context for containerd calls in podlife's namespace.
func (r *Runtime) ctx(parent context.Context) context.Context {
	return namespaces.WithNamespace(parent, r.cfg.Namespace)
}

// Run starts a pod and returns once its start policy has finished: every container started and
// its postStart hook returned (or failed). If the pod cannot be set up (invalid spec, image
// missing, network, create or start failure), everything created for it is removed and the error
// says which container and step failed (*StartError). A postStart hook failure is not an error
// of Run: the container is killed and the pod's status and events say why.
//
// ctx cancels the wait, not the pod: if it ends first, Run returns the pod with ctx's error and
// the pod keeps starting.
func (r *Runtime) Run(ctx context.Context, spec PodSpec) (*Pod, error) {
	p, err := r.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	if err := p.WaitStarted(ctx); err != nil {
		if ctx.Err() != nil {
			return p, err
		}
		return nil, err
	}
	return p, nil
}

// Start validates the spec, registers the pod and begins starting it in the background; it
// returns at once. Use Pod.WaitStarted, Pod.Wait or the events to follow it.
func (r *Runtime) Start(ctx context.Context, spec PodSpec) (*Pod, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	if _, ok := r.pods[spec.Name]; ok {
		return nil, fmt.Errorf("pod %q: %w", spec.Name, ErrAlreadyExists)
	}
	p, err := newPod(r, spec)
	if err != nil {
		return nil, err
	}
	r.pods[spec.Name] = p
	r.control.listen()
	go p.run()
	return p, nil
}

// Pod returns the pod of that name, or an error wrapping ErrNotFound.
func (r *Runtime) Pod(name string) (*Pod, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.pods[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("pod %q: %w", name, ErrNotFound)
}

// Pods returns the runtime's pods, sorted by name.
func (r *Runtime) Pods() []*Pod {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Pod, 0, len(r.pods))
	for _, p := range r.pods {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// Subscribe returns the events of every pod from now on. The channel is closed when ctx is done.
// Delivery never blocks a pod: a subscriber more than 1024 events behind loses events and then
// receives one EventsDropped event.
func (r *Runtime) Subscribe(ctx context.Context) <-chan Event {
	return r.events.subscribe(ctx, false, nil)
}

func (r *Runtime) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// forget drops a removed pod.
func (r *Runtime) forget(p *Pod) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pods[p.name] == p {
		delete(r.pods, p.name)
	}
}

// Close detaches from containerd and stops every goroutine the runtime started (probes,
// restart back-offs, deadline timers, status writers, exit watchers); it does not wait for
// abandoned hooks. Running pods are left running (but no longer supervised and their logs no
// longer copied), and another Runtime on the same state dir can act on them (LookupPod,
// StopPod, RemovePod); their Pod handles of this Runtime then fail with ErrClosed. A private
// containerd started by New is stopped, which leaves its containers running under their shims. A second Close returns an error wrapping ErrClosed.
func (r *Runtime) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	r.closed = true
	pods := make([]*Pod, 0, len(r.pods))
	for _, p := range r.pods {
		pods = append(pods, p)
	}
	r.mu.Unlock()
	close(r.closing)
	// Stop what the runtime started for its pods (probe workers, restart back-offs, hooks of a
	// start in progress; deadline timers and status writers watch r.closing), not the pods.
	for _, p := range pods {
		p.cancelStart()
		p.stopWatch() // exit watchers return without recording an exit
	}
	r.control.close()
	// Each pod's status.json ends with its last status, for the next Runtime on the state dir.
	persisted := time.NewTimer(5 * time.Second)
	defer persisted.Stop()
	for _, p := range pods {
		select {
		case <-p.persisted:
		case <-persisted.C:
		}
	}
	var errs []error
	if r.client != nil {
		errs = append(errs, r.client.Close())
	}
	if r.daemon != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		errs = append(errs, r.daemon.Stop(ctx))
		cancel()
	}
	return errors.Join(errs...)
}
