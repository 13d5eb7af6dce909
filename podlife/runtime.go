package podlife

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sort"
	"sync"
	"time"

	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/internal/logdriver"
	"github.com/podlife/podlife/internal/restart"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/internal/adopt"
	"github.com/podlife/podlife/podlife/internal/conn"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/eventbus"
	"github.com/podlife/podlife/podlife/internal/hostcheck"
	"github.com/podlife/podlife/podlife/internal/shimgroup"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/warmpool"
	"github.com/podlife/podlife/podlife/internal/worker"
)

// Runtime runs pods on one containerd. It is safe for concurrent use. Close it when done: pods
// keep running (their containers belong to containerd), and so does the private containerd of
// the state dir, if New started or found one (see EmbeddedConfig).
type Runtime struct {
	cfg     Config
	ctrd    *ctrd.Client
	tasks   tasks.Runtime // containerd (and the host) under the pods' supervision (package tasks)
	address string        // the containerd socket in use
	private bool          // address is the private containerd of the state dir
	network cni.Network
	log     *slog.Logger
	events  *eventbus.Bus
	probes  probeFanOut // probe results for SubscribeProbes
	clock   clock.Clock
	backoff *restart.Tracker
	control *controlSocket
	closing chan struct{} // closed by Close
	conn    *conn.Watch   // the connection to containerd (see reconnect.go)

	specVersions specVersions // crun's spec version, for the built-in crun runtime class
	speckey      specKeyCache // the state dir's key of spec fingerprints (see speckey.go)

	// shimGroups are the pods' shared shims (Config.Shims ShimShared).
	shimGroups *shimgroup.Groups
	// sharedLogger reports, once asked, whether containers hand their output to the shared
	// logger: containerd's shims are 2.x and Config.ContainerLogger knows it (an older
	// podlife-logger does not). Otherwise each container has its own logger.
	sharedLogger func() bool

	// stateReal is cfg.StateDir resolved at New (symlinks followed, made absolute): the path
	// /proc/self/mountinfo shows for what is mounted under it (see realDir).
	stateReal string

	// adoptLocks are the adoption locks of the pods this Runtime adopted (see adopt.Locks).
	adoptLocks adopt.Locks
	adopter    *adopt.Adopter // adoption and the unmanaged path (see package adopt)
	// host is what the Runtime gives its workers (see workerHost).
	hostOnce sync.Once
	host     *worker.Host

	// mu guards the three fields below, and nothing else: it is never held across I/O,
	// another lock or a call into a pod (see reserve).
	mu       sync.Mutex
	pods     map[string]*podWorker
	reserved map[string]bool // names of pods being created (see reserve)
	closed   bool

	pool warmpool.Manager // the warm pools (see Prewarm)
}

// New connects to containerd (starting a private one if Config says so) and prepares the state
// directory and the pod network.
func New(ctx context.Context, cfg Config) (*Runtime, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if cfg.ContainerLogger != "" {
		// The shim's failure to start it would only show as a container without output.
		if err := hostcheck.Executable(cfg.ContainerLogger); err != nil {
			return nil, fmt.Errorf("podlife: config.containerLogger: %w: %w", err, ErrInvalidSpec)
		}
	}
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("podlife: state dir: %w", err)
	}
	if err := hostcheck.SecureDir(cfg.StateDir, cfg.Logger); err != nil {
		return nil, fmt.Errorf("podlife: state dir: %w", err)
	}
	real, err := hostcheck.ResolveDir(cfg.StateDir)
	if err != nil {
		return nil, fmt.Errorf("podlife: state dir: %w", err)
	}
	r := newRuntime(cfg, clock.Real{})
	r.stateReal = real
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	r.tasks = tasks.Containerd{Client: r.ctrd, Address: r.address, Namespace: r.cfg.Namespace, Credentials: r.cfg.Credentials}
	r.network = cfg.Network
	if r.network == nil {
		b, err := cni.NewBridge(cfg.Bridge)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("podlife: network: %w", err)
		}
		r.network = b
	}
	r.collect(ctx) // startup garbage collection (package gc)
	return r, nil
}

// newRuntime returns a Runtime on cfg (with its defaults applied) that is not connected to
// anything yet: New connects it, and sets its tasks and network.
func newRuntime(cfg Config, clk clock.Clock) *Runtime {
	r := &Runtime{cfg: cfg, log: cfg.Logger, pods: map[string]*podWorker{}, reserved: map[string]bool{}, events: eventbus.NewFanOut(), clock: clk, closing: make(chan struct{}), shimGroups: shimgroup.New(cfg.PodsPerShim)}
	r.sharedLogger = sync.OnceValue(func() bool {
		if r.ctrd == nil {
			return false
		}
		v, err := r.ctrd.Version(context.Background())
		return err == nil && logdriver.ShimsSignalByPidfd(v) && logdriver.SupportsShared(context.Background(), cfg.ContainerLogger)
	})
	r.control = newControl(r)
	r.adopter = newAdopter(r)
	r.conn = newConn(r)
	r.backoff = restart.New(restart.Config{Initial: cfg.Backoff.Initial, Max: cfg.Backoff.Max, ResetAfter: cfg.Backoff.ResetAfter}, r.clock)
	return r
}

// connect dials containerd: the configured address, or the system socket, or the private
// containerd of the state dir, which it starts if none runs (see EmbeddedConfig; with
// Embedded.IgnoreSystem, the system socket is not tried). A containerd older than 2.0 at a
// configured or system address is warned about in the log (see daemon.WarnIfOld).
func (r *Runtime) connect(ctx context.Context) error {
	addr := r.cfg.Address
	explicit := addr != ""
	if !explicit {
		addr = DefaultAddress
	}
	if !r.cfg.Embedded.IgnoreSystem {
		c, err := dial(ctx, addr, r.cfg.Namespace, r.cfg.Snapshotter)
		if err == nil {
			r.ctrd, r.address = c, addr
			daemon.WarnIfOld(ctx, r.log, c.Version, addr)
			return nil
		}
		if explicit || r.cfg.Embedded.Disable {
			return fmt.Errorf("podlife: containerd at %s: %w", addr, err)
		}
	}
	// Twice: a private containerd found serving may stop (daemon stop, a crash) before the
	// dial; the second Ensure then waits for the stop to finish and starts it again.
	for attempt := 0; ; attempt++ {
		info, err := r.ensurePrivate(ctx)
		if errors.Is(err, exec.ErrNotFound) {
			if r.cfg.Embedded.IgnoreSystem {
				return fmt.Errorf("podlife: no containerd binary is installed to start the private containerd (embedded.ignoreSystem): %w", err)
			}
			return fmt.Errorf("podlife: no containerd answers at %s and no containerd binary is installed to start one: %w", addr, err)
		}
		if err != nil {
			return err
		}
		c, err := dial(ctx, info.Address, r.cfg.Namespace, r.cfg.Snapshotter)
		if err == nil {
			r.ctrd, r.address, r.private = c, info.Address, true
			return nil
		}
		if attempt == 1 || ctx.Err() != nil {
			return fmt.Errorf("podlife: private containerd at %s (its log: %s): %w", info.Address, info.LogFile, err)
		}
		r.log.Warn("the private containerd does not answer; ensuring it again", "address", info.Address, "err", err)
	}
}

// privateDir is the directory of the state dir's private containerd.
func privateDir(stateDir string) string { return daemon.PrivateDir(stateDir) }

// ensurePrivate makes sure the private containerd of the state dir serves, starting it (detached,
// under its start lock) if it does not; see daemon.Ensure.
func (r *Runtime) ensurePrivate(ctx context.Context) (daemon.Info, error) {
	info, err := daemon.Ensure(ctx, daemon.Config{Binary: r.cfg.Embedded.Binary, Dir: privateDir(r.cfg.StateDir), Logger: r.log})
	if err != nil {
		return daemon.Info{}, fmt.Errorf("podlife: private containerd: %w", err)
	}
	if info.Started {
		r.log.Info("started the private containerd", "address", info.Address, "pid", info.PID, "log", info.LogFile)
	}
	return info, nil
}

// dial connects to the containerd at addr, namespace ns, and checks that it serves (see
// ctrd.Dial).
func dial(ctx context.Context, addr, ns, snapshotter string) (*ctrd.Client, error) {
	return ctrd.Dial(ctx, addr, ns, snapshotter)
}

// PrivateDaemon reports whether the runtime uses the private containerd of its state dir (see
// EmbeddedConfig), whichever process started it. Close leaves it running; daemon.StopPrivate
// stops it.
func (r *Runtime) PrivateDaemon() bool { return r.private }

// ctx returns a context for containerd calls in podlife's namespace.
func (r *Runtime) ctx(parent context.Context) context.Context {
	return namespaces.WithNamespace(parent, r.cfg.Namespace)
}

// Run starts a pod and returns once its start policy has finished: every container started and
// its postStart hook returned (or failed). If the pod cannot be set up (invalid spec, image
// missing, network, create or start failure), everything created for it is removed and the error
// says which container and step failed (*StartError). A postStart hook failure is not an error
// of Run: the container is killed and the pod's status and events say why. A container that
// cannot be created with its settings (runAsNonRoot and a root user: ErrCreateContainerConfig)
// does not fail the pod either, as on a kubelet: it stays Waiting, the others start, and Run
// returns the pod with a *StartError wrapping ErrCreateContainerConfig.
//
// ctx cancels the wait, not the pod: if it ends first, Run returns the pod with ctx's error and
// the pod keeps starting. Likewise if containerd goes away while the pod starts: Run returns the
// pod at once with an error wrapping ErrUnavailable, and the start goes on (or, if a step failed,
// the pod is removed) once containerd answers again.
func (r *Runtime) Run(ctx context.Context, spec PodSpec) (*Pod, error) {
	p, err := r.start(ctx, spec)
	if err != nil {
		return nil, err
	}
	select {
	case <-p.Started():
		if err := p.StartErr(); err != nil {
			return nil, err
		}
		return r.handle(p), p.ConfigErr()
	case <-ctx.Done():
		return r.handle(p), ctx.Err()
	case <-r.conn.LostCh():
		return r.handle(p), fmt.Errorf("pod %q: containerd went away while the pod started; it goes on once containerd answers again: %w", p.Name(), ErrUnavailable)
	}
}

// start validates the spec, registers the pod and begins starting it in the background; it
// returns at once (Run waits on it).
func (r *Runtime) start(ctx context.Context, spec PodSpec) (*podWorker, error) {
	spec, recorded, handler, err := r.admit(spec)
	if err != nil {
		return nil, err
	}
	if err := r.admitDisk(spec.Name); err != nil {
		return nil, err
	}
	if r.conn.Disconnected() || !r.tasks.SocketAnswers() {
		// A Runtime that was idle learns of an outage here (the private containerd stopped by
		// daemon.StopPrivate, or one that died meanwhile): fail at once and start the
		// reconnection, rather than create half a pod on a dead connection (whose calls wait
		// out the client's dial timeout first).
		r.conn.Lost(fmt.Errorf("nothing accepts connections at %s: %w", r.address, ErrUnavailable))
		return nil, fmt.Errorf("pod %q: containerd does not answer (reconnecting): %w", spec.Name, ErrUnavailable)
	}
	// The name is reserved under r.mu, and the pod's directory created without it: creating
	// it takes the pods' lock, which another process's startup garbage collection may hold for
	// a while, and nothing else of this Runtime (Status, ListPods, Close) waits for that.
	if err := r.reserve(spec.Name); err != nil {
		return nil, err
	}
	if p, err := r.pool.Take(ctx, spec, recorded); p != nil || err != nil {
		return p, err // from a warm pool member (see package warmpool)
	}
	p, err := worker.New(r.workerHost(), spec, recorded, handler.class())
	if err != nil {
		r.unreserve(spec.Name)
		return nil, err
	}
	if err := r.register(p); err != nil {
		// Closed while the directory was created: nothing of the pod exists but its
		// directory, without pod.json.
		if rmErr := p.Discard(); rmErr != nil {
			r.log.Warn("pod directory left behind; startup garbage collection deletes it", "pod", spec.Name, "err", rmErr)
		}
		return nil, err
	}
	r.control.listen()
	p.Start()
	return p, nil
}

// reserve takes a pod name for a pod being created or adopted, so that no other call of this
// Runtime takes it meanwhile; register or unreserve gives it back. It fails with ErrClosed, or
// ErrAlreadyExists if the name is taken. It holds r.mu only for the maps.
func (r *Runtime) reserve(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	if _, ok := r.pods[name]; ok || r.reserved[name] {
		return fmt.Errorf("pod %q: %w", name, ErrAlreadyExists)
	}
	r.reserved[name] = true
	return nil
}

// unreserve gives back a name reserve took, for a pod that was not created.
func (r *Runtime) unreserve(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.reserved, name)
}

// register makes p, whose name reserve took, one of the runtime's pods; it fails with
// ErrClosed if the runtime was closed meanwhile (the name is given back either way).
func (r *Runtime) register(p *podWorker) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.reserved, p.Name())
	if r.closed {
		return ErrClosed
	}
	r.pods[p.Name()] = p
	return nil
}

// Pod returns a handle on the pod of that name in the state directory, whichever process
// manages it (see Pod), or an error wrapping ErrNotFound if the state directory has no such
// pod. A name that is not a valid pod name (a DNS-1123 label) is refused (ErrInvalidSpec).
func (r *Runtime) Pod(name string) (*Pod, error) {
	if err := checkName("pod", name); err != nil {
		return nil, err
	}
	if w, err := r.worker(name); err == nil {
		return r.handle(w), nil
	}
	if _, err := r.readRecord(name); err != nil {
		return nil, err
	}
	return &Pod{rt: r, name: name}, nil
}

// worker returns the worker of the pod of that name, or an error wrapping ErrNotFound.
func (r *Runtime) worker(name string) (*podWorker, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.pods[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("pod %q: %w", name, ErrNotFound)
}

// Pods returns the runtime's pods, sorted by name.
func (r *Runtime) Pods() []*Pod {
	ws := r.workers()
	out := make([]*Pod, len(ws))
	for i, w := range ws {
		out[i] = r.handle(w)
	}
	return out
}

// workers returns the workers of the runtime's pods, sorted by name.
func (r *Runtime) workers() []*podWorker {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*podWorker, 0, len(r.pods))
	for _, p := range r.pods {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Subscribe returns the events of every pod from now on. The channel is closed when ctx is done.
// Delivery never blocks a pod: a subscriber more than 1024 events behind loses events and then
// receives one EventsDropped event.
func (r *Runtime) Subscribe(ctx context.Context) <-chan Event {
	return r.events.Subscribe(ctx, false, nil)
}

func (r *Runtime) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// forget drops a removed pod.
func (r *Runtime) forget(p *podWorker) {
	r.adoptLocks.Release(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pods[p.Name()] == p {
		delete(r.pods, p.Name())
	}
}

// Close detaches from containerd and stops every goroutine the runtime started (probes,
// restart back-offs, deadline timers, status writers, exit watchers, the reconnection loop); it
// does not wait for abandoned hooks. Running pods are left running (but no longer supervised and
// their logs no longer copied), and another Runtime on the same state dir can act on them
// (LookupPod, and its Pod handles: Stop, Remove, ...); the Pod handles of this Runtime then
// fail with ErrClosed.
// The private containerd of the state dir, if the runtime uses it, keeps running for them and
// for other processes (daemon.StopPrivate stops it). A second Close returns an error wrapping
// ErrClosed. The members of the runtime's warm pools (see Prewarm) are removed first.
func (r *Runtime) Close() error {
	r.pool.Close() // the warm pools' members are removed, while the runtime can still remove
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	r.closed = true
	pods := make([]*podWorker, 0, len(r.pods))
	for _, p := range r.pods {
		pods = append(pods, p)
	}
	r.mu.Unlock()
	close(r.closing)
	// Stop what the runtime started for its pods (probe workers, restart back-offs, hooks of a
	// start in progress; deadline timers and status writers watch r.closing), not the pods.
	for _, p := range pods {
		p.Abandon() // exit watchers return without recording an exit
	}
	r.control.close()
	// Each pod's status.json ends with its last status, for the next Runtime on the state dir.
	persisted := time.Now().Add(5 * time.Second)
	for _, p := range pods {
		p.AwaitAbandoned(persisted) // each loop ends once its current closure has run
		r.adoptLocks.Release(p)     // another process may adopt it now
	}
	var errs []error
	if r.ctrd != nil {
		errs = append(errs, r.ctrd.Close())
	}
	// The private containerd, if any, belongs to the state dir, not to this Runtime: it stays
	// (see daemon.StopPrivate).
	return errors.Join(errs...)
}
