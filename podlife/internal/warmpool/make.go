package warmpool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/layout"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/worker"
)

// The Manager's side of a warm pool member (its worker's side: package worker's
// warm_member.go and package warmmember): its directory and record, its making, its removal
// and its claim by Run.

// makeMember makes a member of key's pool from tmpl: a pod named after its directory, in
// <state dir>/pool, whose events go nowhere (a member is no pod), its sandbox made and its
// containers created.
func (m *Manager) makeMember(key string, tmpl *Template) (*worker.Worker, error) {
	id := "m" + worker.NewID()[:15]
	spec, recorded := cloneSpec(tmpl.Spec), cloneSpec(tmpl.Recorded)
	if spec.Hostname == spec.Name {
		spec.Hostname = id
	}
	if recorded.Hostname == recorded.Name {
		recorded.Hostname = id
	}
	spec.Name, recorded.Name = id, id
	dir := filepath.Join(layout.PoolDir(m.d.StateDir), id)
	rec := Member{ID: id, UID: worker.NewID(), Key: key, Created: time.Now(), OwnerPID: os.Getpid()}
	lock, err := makeMemberDir(m.d.StateDir, dir, rec)
	if err != nil {
		return nil, err
	}
	p := worker.NewMember(m.d.Host(), spec, recorded, tmpl.Class, dir, rec.UID, id, rec.Created)
	m.d.HoldLock(p, lock) // until the pod is removed: startup garbage collection knows it lives
	m.making.Store(p, struct{}{})
	err = p.Prewarm()
	m.making.Delete(p)
	if err == nil && m.closed.Load() {
		err = api.ErrClosed // Close may have missed it in making
	}
	if err != nil {
		m.discardMember(p, "it could not be made")
		return nil, err
	}
	rec.Ready = true
	rec.Images = p.WatchMember(func() {
		// A created process died (killed, OOM): the member leaves its pool.
		if m.pools.Load().Remove(key, p) {
			m.discardLater(p, "a created process is gone")
			m.wake()
		}
	})
	if err := rec.Write(dir); err != nil {
		m.d.Log.Warn("warm pool: member record", "pod", id, "err", err)
	}
	failpoint.Hit("pool.ready") // its record says ready; not yet in its pool
	return p, nil
}

// makeMemberDir creates a member's directory with its record, flocked (its adoption lock),
// under the pods' shared lock: a startup garbage collection sees it whole and live.
func makeMemberDir(stateDir, dir string, rec Member) (*os.File, error) {
	release, err := poddir.LockPods(stateDir, syscall.LOCK_SH)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, fmt.Errorf("warm pool: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("warm pool: %w", err)
	}
	failpoint.Hit("pool.mkdir") // no lock, no record
	lock, err := poddir.LockAdoption(dir)
	if err == nil {
		err = rec.Write(dir)
		if err != nil {
			_ = lock.Close()
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("warm pool: %w", err)
	}
	failpoint.Hit("pool.record") // flocked, its record written, nothing made
	return lock, nil
}

// discardMember removes a member that will not be taken (and was not: its directory is still
// under <state dir>/pool), as a failed start removes a pod.
func (m *Manager) discardMember(p *worker.Worker, why string) {
	if err := p.DiscardMember(why); err != nil {
		m.d.Log.Warn("warm pool: a member could not be removed (the next startup garbage collection does)", "member", p.Name(), "err", err)
	}
}

// claimMember makes the member p Run's pod spec (admitted; its name reserved), registers it
// and starts it (see worker.ClaimMember). An error wrapping api.ErrClosed: the runtime closed
// after the member's directory became the pod's; any other: p is still a member, to discard.
func (m *Manager) claimMember(ctx context.Context, p *worker.Worker, spec, recorded api.PodSpec) error {
	return p.ClaimMember(ctx, cloneSpec(spec), cloneSpec(recorded), m.d.Register)
}
