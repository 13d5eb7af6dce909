package podlife

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/eventbus"
	"github.com/podlife/podlife/podlife/internal/layout"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/warmpool"
)

// warmMember marks a pod worker made as a warm pool member (podWorker.warm): its start
// sequence (prewarm) makes everything and starts nothing; once taken by Run, its start
// sequence (startPrewarmed) only starts.
type warmMember struct {
	id      string // its directory's name under <state dir>/pool
	key     string
	created time.Time
	dead    atomic.Bool // a created process is gone (see makeMember)
}

// errMemberStale is claimMember's error for a member that cannot be handed out.
var errMemberStale = errors.New("warm pool member stale")

// makeMember makes a member of key's pool from tmpl: a pod named after its directory, in
// <state dir>/pool, whose events go nowhere (a member is no pod), its sandbox made and its
// containers created.
func (r *Runtime) makeMember(key string, tmpl *memberTemplate) (*podWorker, error) {
	id := "m" + newID()[:15]
	spec, recorded := cloneSpec(tmpl.spec), cloneSpec(tmpl.recorded)
	if spec.Hostname == spec.Name {
		spec.Hostname = id
	}
	if recorded.Hostname == recorded.Name {
		recorded.Hostname = id
	}
	spec.Name, recorded.Name = id, id
	dir := filepath.Join(layout.PoolDir(r.cfg.StateDir), id)
	rec := warmpool.Member{ID: id, UID: newID(), Key: key, Created: time.Now(), OwnerPID: os.Getpid()}
	lock, err := makeMemberDir(r.cfg.StateDir, dir, rec)
	if err != nil {
		return nil, err
	}
	p := assemblePod(r, spec, recorded, tmpl.handler, dir, rec.UID)
	p.events = eventbus.New(nil)
	p.adoptLock = lock // until the pod is removed: startup garbage collection knows it lives
	p.warm = &warmMember{id: id, key: key, created: rec.Created}
	go p.runLoop()
	r.pool.making.Store(p, struct{}{})
	err = p.prewarm()
	r.pool.making.Delete(p)
	if err == nil && r.pool.closed.Load() {
		err = ErrClosed // closePool may have missed it in making
	}
	if err != nil {
		r.discardMember(p, "it could not be made")
		return nil, err
	}
	rec.Ready, rec.Images = true, map[string]string{}
	p.do(func() {
		for _, c := range p.specContainers() {
			rec.Images[c.spec.Name] = c.imageID
			// The member's watch of its created processes: one that dies (killed, OOM) takes
			// the member out of its pool. The exit is passed on to the pod's own exit watcher
			// if the member was taken meanwhile.
			orig, fwd := c.cur.exitCh, make(chan ctrd.ExitStatus, 1)
			c.cur.exitCh = fwd
			go func() {
				st := <-orig
				fwd <- st
				p.warm.dead.Store(true)
				if r.pool.pools.Load().Remove(key, p) {
					r.discardLater(p, "a created process is gone")
					r.pool.wake()
				}
			}()
		}
	})
	if err := rec.Write(dir); err != nil {
		p.log.Warn("warm pool: member record", "err", err)
	}
	return p, nil
}

// makeMemberDir creates a member's directory with its record, flocked (its adoption lock),
// under the pods' shared lock: a startup garbage collection sees it whole and live.
func makeMemberDir(stateDir, dir string, rec warmpool.Member) (*os.File, error) {
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
	return lock, nil
}

// prewarm is a member's start sequence up to the processes: the sandbox, the network, the
// pause if any, and every container's preparation (image, containerd container, task).
func (p *podWorker) prewarm() error {
	ctx := p.startCtx
	if err := p.createLease(ctx); err != nil {
		close(p.netReady)
		return err
	}
	if err := p.sandbox.create(); err != nil {
		close(p.netReady)
		return err
	}
	if err := p.mountImageVolumes(leasedCtx(ctx, p)); err != nil {
		close(p.netReady)
		return err
	}
	if err := p.createPodCgroup(); err != nil {
		close(p.netReady)
		return err
	}
	go func() {
		defer close(p.netReady)
		if err := p.sandbox.attach(ctx, p.network); err != nil {
			p.netErr = &StartError{Pod: p.name, Step: StepNetwork, Err: err}
			return
		}
		p.update(func() { p.sandboxReady = true })
	}()
	if p.pause != nil {
		if err := p.startPause(ctx); err != nil {
			<-p.netReady
			return err
		}
	}
	lctx := leasedCtx(ctx, p)
	var wg sync.WaitGroup
	for _, c := range append(append([]*Container{}, p.inits...), p.apps...) {
		wg.Go(func() { c.prepare(lctx) })
	}
	wg.Wait()
	<-p.netReady
	if p.netErr != nil {
		return p.netErr
	}
	for _, c := range p.specContainers() {
		if c.prepErr != nil {
			return cmpOr(p.rootPrepError(), c.prepErr)
		}
	}
	return nil
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// discardMember removes a member that will not be taken (and was not: its directory is still
// under <state dir>/pool), as a failed start removes a pod.
func (r *Runtime) discardMember(p *podWorker, why string) {
	p.log.Debug("warm pool: removing a member", "why", why)
	go p.persistStatus(p.persistQuit)
	close(p.seqDone)
	ctx, cancel := context.WithTimeout(p.lifeCtx, time.Minute)
	defer cancel()
	p.stopWith(ctx, 0, false, nil)
	if err := p.Remove(ctx); err != nil {
		r.log.Warn("warm pool: a member could not be removed (the next startup garbage collection does)", "member", p.name, "err", err)
	}
}

// claimMember makes the member p Run's pod spec (admitted; its name reserved): it checks that
// every created process still waits and that each image's name still resolves to the digest
// it was created from, then moves the member's directory to the pod's, gives the pod its name,
// spec, hostname and /etc files, and registers it. An error before the move leaves p a member
// (the caller discards it); after the move, only the runtime's closing fails it (ErrClosed:
// what exists of the pod is then left, without its record, to the next startup garbage
// collection, as for a cold start cut the same way).
func (r *Runtime) claimMember(ctx context.Context, p *podWorker, spec, recorded PodSpec, handler ctrRuntime) error {
	t0 := time.Now()
	if p.warm.dead.Load() {
		return fmt.Errorf("%w: a created process is gone", errMemberStale)
	}
	var stale error
	images := map[string]string{}
	ok := p.do(func() {
		for _, c := range p.specContainers() {
			if c.cur == nil || c.cur.task == nil {
				stale = fmt.Errorf("%w: container %q has no task", errMemberStale, c.spec.Name)
				return
			}
			images[c.image.Name] = c.imageID
		}
	})
	if !ok {
		return fmt.Errorf("%w: its loop ended", errMemberStale)
	}
	if stale != nil {
		return stale
	}
	for name, id := range images {
		if err := r.checkImageDigest(ctx, name, id); err != nil {
			return err
		}
	}
	t1 := time.Now()
	release, err := poddir.LockPods(r.cfg.StateDir, syscall.LOCK_SH)
	if err != nil {
		return err
	}
	oldDir, newDir := p.sandbox.dir, filepath.Join(layout.PodsDir(r.cfg.StateDir), spec.Name)
	if err := poddir.RenameNoReplace(oldDir, newDir); err != nil {
		release()
		return err
	}
	// What holds paths under the member's directory (the shim's logger, the log writer's
	// rotation) still finds them; the link goes once dangling (see gc.collectPool, sweepLinks).
	if err := os.Symlink(filepath.Join("..", "pods", spec.Name), oldDir); err != nil {
		p.log.Warn("warm pool: link from the member's directory", "err", err)
	}
	rebase := func(path string) string {
		rel, err := filepath.Rel(oldDir, path)
		if path == "" || err != nil || strings.HasPrefix(rel, "..") {
			return path
		}
		return filepath.Join(newDir, rel)
	}
	spec, recorded = cloneSpec(spec), cloneSpec(recorded)
	memberLabels := p.spec.Labels // the template's: relabel replaces them with the pod's
	now := r.clock.Now()
	age := time.Since(p.warm.created).Round(time.Millisecond)
	p.update(func() {
		p.name, p.spec, p.recorded = spec.Name, spec, recorded
		for i, c := range p.inits {
			c.spec = &p.spec.InitContainers[i]
		}
		for i, c := range p.apps {
			c.spec = &p.spec.Containers[i]
		}
		p.log = r.log.With("pod", spec.Name)
		// The member's events (Pulled, Created, SandboxReady), with their times, become
		// the pod's: its history tells what was made ahead of time.
		made := p.events.Recent()
		p.events = eventbus.New(r.events)
		for _, e := range made {
			e.Pod = spec.Name
			p.events.Publish(e)
		}
		p.startTime = now
		s := p.sandbox
		s.dir, s.hostname = newDir, spec.Hostname
		for k, v := range s.nsPaths {
			s.nsPaths[k] = rebase(v)
		}
		s.pidNS = rebase(s.pidNS)
		p.sup.mu.Lock()
		p.sup.path = rebase(p.sup.path)
		p.sup.mu.Unlock()
		for _, c := range p.specContainers() {
			for _, inst := range c.live {
				inst.logPath, inst.termPath = rebase(inst.logPath), rebase(inst.termPath)
			}
		}
		p.dirUnlock = release // once pod.json is written (run)
	})
	if err := p.sandbox.writeEtc(); err != nil {
		p.log.Warn("warm pool: /etc files", "err", err)
	}
	if uts := p.sandbox.nsPaths[sandboxns.UTS]; uts != "" {
		if err := sandboxns.SetHostname(uts, spec.Hostname); err != nil {
			p.log.Warn("warm pool: hostname", "err", err)
		}
	}
	if err := r.register(p); err != nil {
		release()
		return err
	}
	p.log.Debug("warm pool: member taken", "member", p.warm.id, "checks", t1.Sub(t0), "took", time.Since(t0))
	p.emit("", EventNormal, ReasonStartedFromPool, fmt.Sprintf("Pod sandbox and containers taken from the warm pool (member %s, made %v ago)", p.warm.id, age))
	go p.relabel(memberLabels)
	return nil
}

// relabel gives the containers (and pause) of a taken member their pod's name (LabelPod) and
// labels, in place of the member's (old); everything finds a pod's containers by its UID,
// which they already have. An empty value deletes a label.
func (p *podWorker) relabel(old map[string]string) {
	labels := map[string]string{LabelPod: p.name}
	for k := range old {
		labels[k] = ""
	}
	for k, v := range p.spec.Labels {
		labels[k] = v
	}
	var ctrs []tasks.Container
	p.do(func() {
		for _, c := range p.specContainers() {
			if c.cur != nil && c.cur.ctr != nil {
				ctrs = append(ctrs, c.cur.ctr)
			}
		}
		if p.pause != nil && p.pause.ctr != nil {
			ctrs = append(ctrs, p.pause.ctr)
		}
	})
	for _, ctr := range ctrs {
		if rl, ok := ctr.(tasks.Relabeler); ok {
			if err := rl.SetLabels(p.lifeCtx, labels); err != nil {
				p.log.Debug("warm pool: relabel a container", "err", err)
			}
		}
	}
}

// specContainers returns the pod's init and app containers (a member has no ephemeral one);
// unlike allContainers, it may run on the pod's loop.
func (p *podWorker) specContainers() []*Container {
	return append(append([]*Container{}, p.inits...), p.apps...)
}

// checkImageDigest fails (errMemberStale) unless the image name still points to digest: a
// member is made of the images its names pointed to then, and an image updated since (pulled
// or imported again) must not be handed out.
func (r *Runtime) checkImageDigest(ctx context.Context, name, digest string) error {
	var now string
	var found bool
	var err error
	if d, ok := r.tasks.(tasks.ImageDigester); ok {
		now, found, err = d.ImageDigest(ctx, name)
	} else {
		var img tasks.Image
		img, found, err = r.tasks.LocalImage(ctx, name)
		now = img.ID
	}
	if err != nil {
		return fmt.Errorf("%w: image %s: %w", errMemberStale, name, err)
	}
	if !found || now != digest {
		return fmt.Errorf("%w: image %s is now %q, the member was made from %s", errMemberStale, name, now, digest)
	}
	return nil
}
