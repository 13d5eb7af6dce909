package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"context"
	"slices"
	"time"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/eventbus"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/podstart"
	"github.com/podlife/podlife/podlife/internal/worker/record"
	"github.com/podlife/podlife/podlife/internal/worker/warmmember"
)

// A warm pool member's entry points, which package warmpool's Manager calls: its sequences are
// package warmmember's (Worker.warm holds its own state), given the pod's state's steps by warmPod.

// NewMember makes a warm pool member of spec (admitted; named id, the name of its directory
// dir under <state dir>/pool, which the Runtime made) and starts its loop: a pod whose events
// go nowhere (a member is no pod), nothing of it created yet (see Prewarm).
func NewMember(r *Host, spec, recorded PodSpec, handler tasks.Class, dir, uid, id string, created time.Time) *Worker {
	p := assemblePod(r, spec, recorded, handler, dir, uid)
	p.events = eventbus.New(nil)
	p.warm = warmmember.New(id, created, warmmember.Env{StateDir: r.Cfg.StateDir, Tasks: r.Tasks,
		Sandbox: p.sandbox, Spec: p.spec, Log: p.log, HostLog: r.Log, Now: r.Clock.Now})
	p.spawn(gLoop, p.runLoop)
	return p
}

// CancelMember cancels the making of a member (its Prewarm fails soon): the Runtime closes.
func (p *Worker) CancelMember() { p.cancelStart() }

// Prewarm is a member's start sequence up to the processes (see warmmember.Member.Make).
func (p *Worker) Prewarm() error { return p.warm.Make(p.startCtx, warmPod{p}) }

// WatchMember watches a made member's created processes: one that dies (killed, OOM) marks
// the member dead and calls onDead (the Runtime takes it out of its pool). The exit is passed
// on to the pod's own exit watcher if the member was taken meanwhile. It returns the image IDs
// the containers were created from, by container.
func (p *Worker) WatchMember(onDead func()) map[string]string {
	images := map[string]string{}
	p.do(func() {
		for _, c := range slices.Concat(p.inits, p.apps) {
			images[c.spec.Name] = c.st.ImageID
			orig, fwd := c.cur.exitCh, make(chan ctrd.ExitStatus, 1)
			c.cur.exitCh = fwd
			p.spawn(gMemberExit, func() { p.warm.ForwardExit(orig, fwd, onDead) })
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

// ClaimMember makes the member p Run's pod spec and starts its start sequence (see
// warmmember.Member.Claim; register is the Runtime's).
func (p *Worker) ClaimMember(ctx context.Context, spec, recorded PodSpec, register func(*Worker) error) error {
	msg, err := p.warm.Claim(ctx, warmPod{p}, spec, recorded, func() error { return register(p) })
	if err != nil {
		return err
	}
	p.emit("", EventNormal, ReasonStartedFromPool, msg)
	p.spawn(gStart, p.run)
	return nil
}

// writeRecordFile writes the pod's record, pod.json (see warmmember.Member.WriteRecord).
func (p *Worker) writeRecordFile(path string, rec record.Record) error {
	return p.warm.WriteRecord(warmPod{p}, path, rec) // p.warm nil: not a member
}

// warmPod is a member's worker as its sequences see it: its methods are warmmember.Pod's
// (documented there), the pod's state's steps, each where the cold start takes it.
type warmPod struct{ *Worker }

var warmGoroutines = [...]string{warmmember.GoEtc: gWarmEtc, warmmember.GoRecordSync: gRecordSync, warmmember.GoRelabel: gRelabel}

func (w warmPod) Go(g warmmember.Goroutine, fn func()) { w.spawn(warmGoroutines[g], fn) }

func (w warmPod) Containers() (cs []warmmember.Container, pause tasks.Container, ok bool) {
	ok = w.do(func() {
		for _, c := range slices.Concat(w.inits, w.apps) {
			s := warmmember.Container{Name: c.spec.Name, Image: c.image.Name, ImageID: c.st.ImageID}
			if c.cur != nil {
				s.Ctr, s.Task = c.cur.ctr, c.cur.task != nil
			}
			for _, inst := range c.live {
				s.Started = append(s.Started, inst.startedAt)
			}
			cs = append(cs, s)
		}
		if w.pause != nil {
			pause = w.pause.ctr
		}
	})
	return cs, pause, ok
}

func (w warmPod) Steps() podstart.Pod { return w.startSteps() }

func (w warmPod) Become(id warmmember.Identity) {
	p := w.Worker
	p.update(func() {
		p.name, p.spec, p.recorded, p.log = id.Spec.Name, id.Spec, id.Recorded, id.Log
		for i, c := range p.inits {
			c.spec = &p.spec.InitContainers[i]
		}
		for i, c := range p.apps {
			c.spec = &p.spec.Containers[i]
		}
		p.events = warmmember.Reissue(p.events.Recent(), p.host.Events, p.name)
		p.startTime = id.Now
		p.sandbox.Rebase(id.Dir, p.spec.Hostname, id.Rebase)
		p.sup.SetDir(id.Dir)
		for _, c := range slices.Concat(p.inits, p.apps) {
			for _, inst := range c.live {
				inst.logPath, inst.termPath = id.Rebase(inst.logPath), id.Rebase(inst.termPath)
				if inst.gate != nil {
					inst.gate.Rebase(id.Rebase) // its release removes the file: adoption reads it
				}
			}
		}
		p.records.SetRelease(id.Release)
	})
}
