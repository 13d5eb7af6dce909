package podlife

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/internal/execgate"
	"github.com/podlife/podlife/internal/logdriver"
	"github.com/podlife/podlife/internal/restart"
	"github.com/podlife/podlife/podlife/internal/adopt"
	"github.com/podlife/podlife/podlife/internal/conn"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/endpoint"
	"github.com/podlife/podlife/podlife/internal/eventbus"
	"github.com/podlife/podlife/podlife/internal/hostcheck"
	"github.com/podlife/podlife/podlife/internal/podtable"
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

	// table is the Runtime's pods, the names reserved by pods being created, and whether it is
	// closed; its lock is never held across I/O, another lock or a call into a pod (package
	// podtable).
	table *podtable.Table[*podWorker]

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
	if cfg.ExecGate != "" {
		// It runs in containers whose images may have no C library.
		if err := execgate.CheckBinary(cfg.ExecGate); err != nil {
			return nil, fmt.Errorf("podlife: config.execGate: %w: %w", err, ErrInvalidSpec)
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
	r := &Runtime{cfg: cfg, log: cfg.Logger, table: podtable.New[*podWorker](), events: eventbus.NewFanOut(), clock: clk, closing: make(chan struct{}), shimGroups: shimgroup.New(cfg.PodsPerShim)}
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

// connect dials containerd (see endpoint.Connect): the configured address, or the system
// socket, or the private containerd of the state dir, which it starts if none runs.
func (r *Runtime) connect(ctx context.Context) error {
	c, err := endpoint.Connect(ctx, r.endpoint())
	if err != nil {
		return err
	}
	r.ctrd, r.address, r.private = c.Client, c.Address, c.Private
	return nil
}

// endpoint is the Config's settings of the containerd to use (see package endpoint).
func (r *Runtime) endpoint() endpoint.Config {
	c := &r.cfg
	return endpoint.Config{
		Address: c.Address, System: DefaultAddress, Namespace: c.Namespace, Snapshotter: c.Snapshotter,
		Disable: c.Embedded.Disable, IgnoreSystem: c.Embedded.IgnoreSystem, Binary: c.Embedded.Binary,
		StateDir: c.StateDir, Log: r.log,
	}
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
	// The name is reserved in the table, and the pod's directory created without its lock:
	// creating it takes the pods' lock, which another process's startup garbage collection may
	// hold for a while, and nothing else of this Runtime (Status, ListPods, Close) waits for that.
	if err := r.table.Reserve(spec.Name); err != nil {
		return nil, err
	}
	if p, err := r.pool.Take(ctx, spec, recorded); p != nil || err != nil {
		return p, err // from a warm pool member (see package warmpool)
	}
	p, err := worker.New(r.workerHost(), spec, recorded, handler.class())
	if err != nil {
		r.table.Unreserve(spec.Name)
		return nil, err
	}
	if err := r.table.Register(p); err != nil {
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

// Pod returns a handle on the pod of that name in the state directory, whichever process
// manages it (see Pod), or an error wrapping ErrNotFound if the state directory has no such
// pod. A name that is not a valid pod name (a DNS-1123 label) is refused (ErrInvalidSpec).
func (r *Runtime) Pod(name string) (*Pod, error) {
	if err := checkName("pod", name); err != nil {
		return nil, err
	}
	if w, err := r.table.Get(name); err == nil {
		return r.handle(w), nil
	}
	if _, err := r.readRecord(name); err != nil {
		return nil, err
	}
	return &Pod{rt: r, name: name}, nil
}

// Pods returns the runtime's pods, sorted by name.
func (r *Runtime) Pods() []*Pod {
	ws := r.table.List()
	out := make([]*Pod, len(ws))
	for i, w := range ws {
		out[i] = r.handle(w)
	}
	return out
}

// Subscribe returns the events of every pod from now on. The channel is closed when ctx is done.
// Delivery never blocks a pod: a subscriber more than 1024 events behind loses events and then
// receives one EventsDropped event.
func (r *Runtime) Subscribe(ctx context.Context) <-chan Event {
	return r.events.Subscribe(ctx, false, nil)
}

// isClosed reports whether Close was called.
func (r *Runtime) isClosed() bool { return r.table.Closed() }

// forget drops a removed pod, or one left unmanaged again, and releases its adoption lock.
func (r *Runtime) forget(p *podWorker) {
	r.adoptLocks.Release(p)
	r.table.Forget(p)
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
	pods, ok := r.table.Close()
	if !ok {
		return ErrClosed
	}
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
