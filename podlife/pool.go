package podlife

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/podlife/podlife/podlife/internal/warmpool"
)

// ErrNotPoolable is wrapped by Prewarm's error for a spec that cannot be pooled; the error
// names the field (a *warmpool.NotPoolableError's text).
var ErrNotPoolable = errors.New("spec not poolable")

// ErrPoolLimit is wrapped by Prewarm's error when the targets of all the runtime's pools would
// exceed MaxPoolMembers.
var ErrPoolLimit = warmpool.ErrLimit

// MaxPoolMembers bounds the members all of a Runtime's warm pools keep together. A member
// costs what a created pod costs before its processes run: its shim (about 6 MiB PSS), one
// runc init process per container waiting to be started (about 1 MiB each), a logger per
// container with Config.ContainerLogger (about 0.9 MiB PSS each), its network namespace, IP
// lease and pod directory (see docs/warm-pool.md).
const MaxPoolMembers = 64

// poolMakers is how many members are made at once, all pools together: the refill never takes
// more of the host than one pod start, so that user starts are not starved.
const poolMakers = 1

// poolRefillDelay is how long the refill waits, after the start of a pod taken from a pool,
// before it makes a member: a burst of takes and their starts run first.
const poolRefillDelay = 25 * time.Millisecond

// poolRefillAfterStart bounds how long the refill waits for the start of a pod taken from a
// pool.
const poolRefillAfterStart = time.Second

// poolRetryDelay is how long the refill waits after a member could not be made.
const poolRetryDelay = 2 * time.Second

// PoolStat is one warm pool's counts (Runtime.PoolStats).
type PoolStat struct {
	// Key is the pool's spec key (see Prewarm: the spec's hash, identity fields left out).
	Key string
	// Target is how many members Prewarm asked for; Ready how many wait to be taken; Making
	// how many are being made.
	Target, Ready, Making int
}

// PoolMember is a warm pool member found in the state dir (Runtime.ListPoolMembers): a pod
// sandbox with its containers created and not started, with no name yet. It is never one of
// ListPods' pods.
type PoolMember struct {
	ID       string    // its directory's name under <state dir>/pool
	UID      string    // the UID its pod will have
	Key      string    // its pool's key (PoolStat.Key)
	Created  time.Time // when it was begun
	OwnerPID int       // the process that keeps it
	// Images are the image IDs (digests) its containers were created from, by container.
	Images map[string]string
	// Ready: every container created; else being made.
	Ready bool
	// Live: the process that keeps it lives (else the next startup garbage collection of the
	// state dir removes it).
	Live bool
}

// warmPools is a Runtime's warm pools (see Prewarm); its zero value has none.
type warmPools struct {
	once   sync.Once
	pools  atomic.Pointer[warmpool.Pools[*podWorker]] // nil until the first Prewarm
	kick   chan struct{}                              // wakes the refill
	quit   chan struct{}                              // closed by close: the refill ends
	done   chan struct{}                              // closed when the refill has ended
	closed atomic.Bool
	// discards are the members being removed in the background (see discardLater).
	discards sync.WaitGroup
	// making are the members being made (their prewarm under way), which closePool cancels:
	// a pull must not hold Close up.
	making sync.Map // *podWorker -> struct{}
	// settling counts the members made that the refill has not yet kept or removed: a Prewarm
	// that lowers a target waits for them.
	settling atomic.Int64
	// starting are the starts of pods taken from a pool (their Started channels) that the
	// refill waits for before it makes a member (afterStart, waitStarts).
	startingMu sync.Mutex
	starting   []<-chan struct{}
}

// memberTemplate is what makes a pool's members: an admitted spec, its recorded form and its
// runtime class.
type memberTemplate struct {
	spec, recorded PodSpec
	handler        ctrRuntime
	failed         atomic.Pointer[memberFailure] // the last member that could not be made
}

type memberFailure struct {
	at  time.Time
	err error
}

// Prewarm keeps n pods of spec ready to start: their sandboxes made (namespaces, network
// attached, /etc files, volumes, pod cgroup) and every container created (containerd container
// and task: runc create done), no process started. Run of a matching spec then takes one,
// gives it the spec's name and starts its processes in the spec's order (init containers,
// then the start policy, postStart blocking the next as always); the pool is refilled in the
// background, one member at a time. Prewarm waits until n members are ready (or ctx ends,
// which ends the wait, not the pool); a lower n removes the members beyond it before Prewarm
// returns, and n = 0 drops the pool (every member removed, those being made included).
//
// A spec matches when it equals spec in everything but its name, its hostname when that is
// the name's default, its labels, and what acts only once processes run (start policy,
// lifecycle hooks, probes: the taken pod uses Run's). Fixed when a member is made: the pod's
// UID, its IP, the created processes' environment and arguments, the image digests (a member
// made from an image its name no longer resolves to locally is discarded at take, and so is
// one whose created process died). Set at take: the name (pod directory, record, events), the
// labels (containerd's), /etc/hostname, /etc/hosts and the UTS namespace's hostname. A spec
// whose created processes would hold its name (an environment variable, argument or file
// holding spec.Name, as the downward API's metadata.name does), that publishes hostPorts or
// has an OCIHook is refused with ErrNotPoolable, naming the field. spec.Name is only the name
// such a check looks for: it may be any valid name.
//
// Members are not pods: ListPods, Pods and Pod never show one (ListPoolMembers does). Close
// removes them; those of a process that died are removed by the next startup garbage
// collection of the state dir. The members of all pools are at most MaxPoolMembers.
func (r *Runtime) Prewarm(ctx context.Context, spec PodSpec, n int) error {
	if n < 0 {
		return fmt.Errorf("prewarm: n = %d: %w", n, ErrInvalidSpec)
	}
	if r.isClosed() {
		return ErrClosed
	}
	adm, recorded, handler, err := r.admit(spec)
	if err != nil {
		return err
	}
	if err := warmpool.Poolable(adm); err != nil {
		return fmt.Errorf("prewarm: %w: %w", ErrNotPoolable, err)
	}
	key, err := warmpool.Key(adm)
	if err != nil {
		return fmt.Errorf("prewarm: %w: %w", ErrNotPoolable, err)
	}
	wp := r.warm()
	tmpl := &memberTemplate{spec: adm, recorded: recorded, handler: handler}
	drop, err := wp.pools.Load().SetTarget(key, n, tmpl)
	if err != nil {
		return fmt.Errorf("prewarm: %w", err)
	}
	var dropped sync.WaitGroup
	for _, m := range drop {
		dropped.Go(func() { r.discardMember(m, "the pool's target was lowered") })
	}
	dropped.Wait()
	wp.wake()
	return r.waitPool(ctx, key, n, tmpl)
}

// waitPool waits until key's pool has n members ready (or fewer wanted), or a member of tmpl
// could not be made.
func (r *Runtime) waitPool(ctx context.Context, key string, n int, tmpl *memberTemplate) error {
	t0 := time.Now()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		st, ok := r.poolStat(key)
		switch {
		case !ok && r.pool.settling.Load() == 0: // dropped, and no member of it is left
			return nil
		case ok && st.Ready >= min(n, st.Target) && (n > 0 || st.Making == 0):
			return nil
		}
		if f := tmpl.failed.Load(); f != nil && f.at.After(t0) {
			return fmt.Errorf("prewarm: a member could not be made (the refill tries again): %w", f.err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-r.closing:
			return ErrClosed
		case <-tick.C:
		}
	}
}

func (r *Runtime) poolStat(key string) (PoolStat, bool) {
	for _, s := range r.PoolStats() {
		if s.Key == key {
			return s, true
		}
	}
	return PoolStat{}, false
}

// PoolStats returns the counts of the runtime's warm pools, by key.
func (r *Runtime) PoolStats() []PoolStat {
	ps := r.pool.pools.Load()
	if ps == nil {
		return nil
	}
	var out []PoolStat
	for _, s := range ps.Stats() {
		out = append(out, PoolStat(s))
	}
	return out
}

// ListPoolMembers returns the warm pool members in the state directory, whichever process
// keeps them (see Prewarm), oldest first.
func (r *Runtime) ListPoolMembers(ctx context.Context) ([]PoolMember, error) {
	found, err := warmpool.List(r.cfg.StateDir)
	if err != nil {
		return nil, fmt.Errorf("podlife: list pool members: %w", err)
	}
	out := make([]PoolMember, len(found))
	for i, f := range found {
		out[i] = PoolMember{ID: f.ID, UID: f.UID, Key: f.Key, Created: f.Created, OwnerPID: f.OwnerPID, Images: f.Images, Ready: f.Ready, Live: f.Live}
	}
	return out, nil
}

// warm returns the runtime's pools, started on first use.
func (r *Runtime) warm() *warmPools {
	wp := &r.pool
	wp.once.Do(func() {
		wp.kick, wp.quit, wp.done = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
		wp.pools.Store(warmpool.New[*podWorker](MaxPoolMembers))
		go r.refill()
	})
	return wp
}

// afterStart tells the refill of the start of a pod taken from a pool (started is closed once
// it is over) and wakes it: the refill waits for that start before it makes the member that
// replaces the one taken.
func (wp *warmPools) afterStart(started <-chan struct{}) {
	wp.startingMu.Lock()
	wp.starting = append(wp.starting, started)
	wp.startingMu.Unlock()
	wp.wake()
}

// waitStarts waits until the starts afterStart was told of are over (each for
// poolRefillAfterStart at most: a start policy may wait for readiness), or quit. It reports
// whether there were any.
func (wp *warmPools) waitStarts() bool {
	wp.startingMu.Lock()
	starting := wp.starting
	wp.starting = nil
	wp.startingMu.Unlock()
	if len(starting) == 0 {
		return false
	}
	t := time.NewTimer(poolRefillAfterStart)
	defer t.Stop()
	for _, started := range starting {
		select {
		case <-started:
		case <-t.C:
			return true
		case <-wp.quit:
			return true
		}
	}
	return true
}

func (wp *warmPools) wake() {
	select {
	case wp.kick <- struct{}{}:
	default:
	}
}

// refill makes the members the pools lack, poolMakers at a time, until closePool.
func (r *Runtime) refill() {
	wp := &r.pool
	defer close(wp.done)
	var makers sync.WaitGroup
	defer makers.Wait()
	for {
		select {
		case <-wp.quit:
			return
		case <-wp.kick:
		}
		// A burst of takes (user starts) goes first: the refill waits until the starts of the
		// pods taken are over, and poolRefillDelay more without a take.
		for settled := false; !settled; {
			select {
			case <-wp.quit:
				return
			case <-wp.kick:
			case <-time.After(poolRefillDelay):
				settled = !wp.waitStarts()
			}
		}
		for {
			key, tmpl, ok := wp.pools.Load().Next(poolMakers)
			if !ok {
				break
			}
			makers.Go(func() {
				warmpool.SweepLinks(r.cfg.StateDir)
				wp.settling.Add(1)
				defer wp.settling.Add(-1)
				m, err := r.makeMember(key, tmpl.(*memberTemplate))
				if err != nil {
					if wp.closed.Load() {
						wp.pools.Load().Made(key, nil, false)
						return
					}
					r.log.Warn("warm pool: a member could not be made; trying again later", "key", key, "err", err)
					tmpl.(*memberTemplate).failed.Store(&memberFailure{at: time.Now(), err: err})
					wp.pools.Load().Made(key, nil, false)
					time.AfterFunc(poolRetryDelay, wp.wake)
					return
				}
				if !wp.pools.Load().Made(key, m, true) {
					r.discardMember(m, "no longer wanted")
				}
				wp.wake()
			})
		}
	}
}

// closePool ends the refill and removes every ready member (Close; before the runtime is
// marked closed, as removing a pod needs it open).
func (r *Runtime) closePool() {
	wp := &r.pool
	if wp.pools.Load() == nil || !wp.closed.CompareAndSwap(false, true) {
		return
	}
	close(wp.quit)
	wp.making.Range(func(k, _ any) bool {
		k.(*podWorker).CancelMember()
		return true
	})
	<-wp.done // every member being made is made (and kept) or discarded
	for _, m := range wp.pools.Load().Close() {
		r.discardLater(m, "the runtime is closed")
	}
	wp.discards.Wait()
	warmpool.SweepLinks(r.cfg.StateDir)
}

// discardLater removes a member in the background; closePool waits for it.
func (r *Runtime) discardLater(m *podWorker, why string) {
	r.pool.discards.Go(func() { r.discardMember(m, why) })
}

// takeWarm gives Run's pod (spec admitted, its name reserved) a ready member of its pool, if
// there is one, and starts it (see claimMember): the pod it returns is registered and its
// start sequence runs. It returns nil and no error if there is none or none could be claimed:
// the pod then starts cold, its name still reserved. On an error (ErrClosed), the name is given
// back.
func (r *Runtime) takeWarm(ctx context.Context, spec, recorded PodSpec) (*podWorker, error) {
	ps := r.pool.pools.Load()
	if ps == nil || warmpool.Takeable(spec) != nil {
		return nil, nil
	}
	key, err := warmpool.Key(spec)
	if err != nil {
		return nil, nil
	}
	for {
		m, ok := ps.Take(key)
		if !ok {
			return nil, nil
		}
		if err := r.claimMember(ctx, m, spec, recorded); err != nil {
			if errors.Is(err, ErrClosed) {
				r.unreserve(spec.Name)
				return nil, err
			}
			r.log.Info("warm pool: member not taken; trying the next", "pod", spec.Name, "member", m.Name(), "err", err)
			r.discardLater(m, err.Error())
			r.pool.wake() // its replacement (of the new image, say)
			continue
		}
		r.pool.afterStart(m.Started())
		return m, nil
	}
}

// cloneSpec copies spec's container lists, which a pod's containers point into.
func cloneSpec(spec PodSpec) PodSpec {
	spec.InitContainers = slices.Clone(spec.InitContainers)
	spec.Containers = slices.Clone(spec.Containers)
	return spec
}
