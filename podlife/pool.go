package podlife

import (
	"context"
	"errors"
	"fmt"
	"os"
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
	r.pool.Start(r.poolDeps())
	return r.pool.Prewarm(ctx, key, n, &warmpool.Template{Spec: adm, Recorded: recorded, Class: handler.class()})
}

// poolDeps is what the Runtime gives its warm pools (warmpool.Manager).
func (r *Runtime) poolDeps() warmpool.Deps {
	return warmpool.Deps{
		StateDir: r.cfg.StateDir, Log: r.log, Limit: MaxPoolMembers, Host: r.workerHost,
		HoldLock:  func(w *podWorker, lock *os.File) { r.adoptLocks.Hold(w, lock) },
		Unreserve: r.table.Unreserve,
		Register: func(w *podWorker) error {
			if err := r.table.Register(w); err != nil {
				return err
			}
			r.control.listen()
			return nil
		},
		Closing: r.closing,
	}
}

// PoolStats returns the counts of the runtime's warm pools, by key.
func (r *Runtime) PoolStats() []PoolStat {
	var out []PoolStat
	for _, s := range r.pool.Stats() {
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
