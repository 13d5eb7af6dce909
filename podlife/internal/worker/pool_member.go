package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

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
)

// A warm pool member (the Runtime's pools: package warmpool's Manager) is a Worker whose start
// sequence stops before the processes: NewMember makes it, Prewarm makes its sandbox and
// containers, WatchMember watches its created processes, and ClaimMember makes it the pod of
// Run's spec and starts it (startPrewarmed); DiscardMember removes one that is not taken.

// warmMember marks a pod worker made as a warm pool member (Worker.warm): its start
// sequence (prewarm) makes everything and starts nothing; once taken by Run, its start
// sequence (startPrewarmed) only starts.
type warmMember struct {
	id      string // its directory's name under <state dir>/pool
	created time.Time
	dead    atomic.Bool // a created process is gone (see WatchMember)
	trace   warmTrace   // its start once taken, step by step
	// syncLater: the pod's first record is synced while its processes start, not before
	// (set by ClaimMember; see writeRecordFile); recordSynced then gives the sync's result.
	syncLater    bool
	recordSynced chan error
	// etcDone is closed once ClaimMember's rewrite of the /etc files and the hostname is done:
	// the start sequence waits for it before any process starts.
	etcDone chan struct{}
	// oldLabels are the member's labels, which relabel replaces once the pod started.
	oldLabels map[string]string
}

// errMemberStale is ClaimMember's error for a member that cannot be handed out.
var errMemberStale = errors.New("warm pool member stale")

// NewMember makes a warm pool member of spec (admitted; named id, the name of its directory
// dir under <state dir>/pool, which the Runtime made) and starts its loop: a pod whose events
// go nowhere (a member is no pod), nothing of it created yet (see Prewarm).
func NewMember(r *Host, spec, recorded PodSpec, handler tasks.Class, dir, uid, id string, created time.Time) *Worker {
	p := assemblePod(r, spec, recorded, handler, dir, uid)
	p.events = eventbus.New(nil)
	p.warm = &warmMember{id: id, created: created}
	p.spawn(gLoop, p.runLoop)
	return p
}

// CancelMember cancels the making of a member (its Prewarm fails soon): the Runtime closes.
func (p *Worker) CancelMember() { p.cancelStart() }

// Prewarm is a member's start sequence up to the processes: the sandbox, the network, the
// pause if any, and every container's preparation (image, containerd container, task).
func (p *Worker) Prewarm() error {
	ctx := p.startCtx
	if err := p.sandbox.CreateLease(ctx, p.name, p.host.Cfg.StateDir); err != nil {
		close(p.netReady)
		return err
	}
	if err := p.createSandbox(); err != nil {
		close(p.netReady)
		return err
	}
	if err := p.mountImageVolumes(leasedCtx(ctx, p)); err != nil {
		close(p.netReady)
		return err
	}
	if err := p.sandbox.CreateCgroup(p.spec.Resources); err != nil {
		close(p.netReady)
		return err
	}
	p.spawn(gNetwork, func() {
		defer close(p.netReady)
		if err := p.sandbox.Attach(ctx, p.network, &p.spec, PortMappings(&p.spec)); err != nil {
			p.netErr = &StartError{Pod: p.name, Step: StepNetwork, Err: err}
			return
		}
		p.update(func() { p.sandboxReady = true })
	})
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

// WatchMember watches a made member's created processes: one that dies (killed, OOM) marks
// the member dead and calls onDead (the Runtime takes it out of its pool). The exit is passed
// on to the pod's own exit watcher if the member was taken meanwhile. It returns the image IDs
// the containers were created from, by container.
func (p *Worker) WatchMember(onDead func()) map[string]string {
	images := map[string]string{}
	p.do(func() {
		for _, c := range p.specContainers() {
			images[c.spec.Name] = c.imageID
			orig, fwd := c.cur.exitCh, make(chan ctrd.ExitStatus, 1)
			c.cur.exitCh = fwd
			p.spawn(gMemberExit, func() {
				st := <-orig
				fwd <- st
				p.warm.dead.Store(true)
				onDead()
			})
		}
	})
	return images
}

// DiscardMember removes a member that will not be taken (and was not: its directory is still
// under <state dir>/pool), as a failed start removes a pod.
func (p *Worker) DiscardMember(why string) error {
	p.log.Debug("warm pool: removing a member", "why", why)
	p.spawn(gStatus, func() { p.persistStatus(p.persistQuit) })
	close(p.seqDone)
	ctx, cancel := context.WithTimeout(p.lifeCtx, time.Minute)
	defer cancel()
	p.stopWith(ctx, 0, false, nil)
	return p.Remove(ctx)
}

// ClaimMember makes the member p Run's pod spec (admitted; its name reserved): it checks that
// every created process still waits and that each image's name still resolves to the digest
// it was created from, then moves the member's directory to the pod's, gives the pod its name,
// spec, hostname and /etc files, registers it (register: the Runtime's) and starts its start
// sequence (startPrewarmed). An error before the move leaves p a member (the caller discards
// it); after the move, only register fails it (ErrClosed: what exists of the pod is then
// left, without its record, to the next startup garbage collection, as for a cold start cut
// the same way).
func (p *Worker) ClaimMember(ctx context.Context, spec, recorded PodSpec, register func(*Worker) error) error {
	r := p.host
	t0 := time.Now()
	tr := &p.warm.trace
	tr.begin(t0)
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
		if err := p.checkImageDigest(ctx, name, id); err != nil {
			return err
		}
	}
	t1 := time.Now()
	tr.markAt("checks", t1)
	release, err := poddir.LockPods(r.Cfg.StateDir, syscall.LOCK_SH)
	if err != nil {
		return err
	}
	oldDir, newDir := p.sandbox.Dir(), filepath.Join(layout.PodsDir(r.Cfg.StateDir), spec.Name)
	if err := poddir.RenameNoReplace(oldDir, newDir); err != nil {
		release()
		return err
	}
	// What holds paths under the member's directory (the shim's logger, the log writer's
	// rotation) still finds them; the link goes once dangling (see gc.collectPool, sweepLinks).
	if err := os.Symlink(filepath.Join("..", "pods", spec.Name), oldDir); err != nil {
		p.log.Warn("warm pool: link from the member's directory", "err", err)
	}
	tr.mark("rename")
	rebase := func(path string) string {
		rel, err := filepath.Rel(oldDir, path)
		if path == "" || err != nil || strings.HasPrefix(rel, "..") {
			return path
		}
		return filepath.Join(newDir, rel)
	}
	memberLabels := p.spec.Labels // the template's: relabel replaces them with the pod's
	memberHost := p.sandbox.Hostname()
	now := r.Clock.Now()
	age := time.Since(p.warm.created).Round(time.Millisecond)
	p.update(func() {
		p.name, p.spec, p.recorded = spec.Name, spec, recorded
		for i, c := range p.inits {
			c.spec = &p.spec.InitContainers[i]
		}
		for i, c := range p.apps {
			c.spec = &p.spec.Containers[i]
		}
		p.log = r.Log.With("pod", spec.Name)
		// The member's events (Pulled, Created, SandboxReady), with their times, become
		// the pod's: its history tells what was made ahead of time.
		made := p.events.Recent()
		p.events = eventbus.New(r.Events)
		for _, e := range made {
			e.Pod = spec.Name
			p.events.Publish(e)
		}
		p.startTime = now
		p.sandbox.Rebase(newDir, spec.Hostname, rebase)
		p.sup.SetDir(newDir)
		for _, c := range p.specContainers() {
			for _, inst := range c.live {
				inst.logPath, inst.termPath = rebase(inst.logPath), rebase(inst.termPath)
			}
		}
		p.records.SetRelease(release) // once pod.json is written (run)
	})
	tr.mark("identity")
	// The /etc files and the hostname are the pod's before its record is in place (and so
	// before any process starts: see writeRecordFile), rewritten meanwhile the record is made.
	etcDone := make(chan struct{})
	p.warm.etcDone, p.warm.syncLater, p.warm.oldLabels = etcDone, true, memberLabels
	if spec.Hostname == memberHost {
		close(etcDone) // an explicit hostname (the pool's key has it): the member's files are the pod's
	} else {
		p.spawn(gWarmEtc, func() {
			defer close(etcDone)
			p.rewriteEtc(spec.Hostname)
		})
	}
	if err := register(p); err != nil {
		<-etcDone
		release()
		return err
	}
	tr.mark("register")
	p.log.Debug("warm pool: member taken", "member", p.warm.id, "checks", t1.Sub(t0), "took", time.Since(t0))
	p.emit("", EventNormal, ReasonStartedFromPool, fmt.Sprintf("Pod sandbox and containers taken from the warm pool (member %s, made %v ago)", p.warm.id, age))
	p.spawn(gStart, p.run)
	return nil
}

// rewriteEtc gives a taken member's sandbox the pod's hostname: /etc/hostname and /etc/hosts,
// and the UTS namespace's. A failure is logged: the pod starts with the member's.
func (p *Worker) rewriteEtc(hostname string) {
	if err := p.sandbox.WriteEtc(&p.spec); err != nil {
		p.log.Warn("warm pool: /etc files", "err", err)
	}
	if uts := p.sandbox.NSPath(sandboxns.UTS); uts != "" {
		if err := sandboxns.SetHostname(uts, hostname); err != nil {
			p.log.Warn("warm pool: hostname", "err", err)
		}
	}
}

// relabel gives the containers (and pause) of a taken member their pod's name (LabelPod) and
// labels, in place of the member's (old); everything finds a pod's containers by its UID,
// which they already have. An empty value deletes a label.
func (p *Worker) relabel(old map[string]string) {
	labels := map[string]string{layout.LabelPod: p.name}
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
func (p *Worker) specContainers() []*Container {
	return append(append([]*Container{}, p.inits...), p.apps...)
}

// checkImageDigest fails (errMemberStale) unless the image name still points to digest: a
// member is made of the images its names pointed to then, and an image updated since (pulled
// or imported again) must not be handed out.
func (p *Worker) checkImageDigest(ctx context.Context, name, digest string) error {
	var now string
	var found bool
	var err error
	if d, ok := p.host.Tasks.(tasks.ImageDigester); ok {
		now, found, err = d.ImageDigest(ctx, name)
	} else {
		var img tasks.Image
		img, found, err = p.host.Tasks.LocalImage(ctx, name)
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
