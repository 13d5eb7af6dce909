package warmmember

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/internal/sandboxns"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/layout"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
)

// Claim makes the member Run's pod of spec (admitted; its name reserved) (the worker's
// ClaimMember): it checks that every created process still waits and that each image's name
// still resolves to the digest it was created from, then moves the member's directory to the
// pod's, gives the pod its name, spec, hostname and /etc files (Pod.Become, the /etc files
// rewritten in a goroutine meanwhile) and registers it (register: the Runtime's). It returns
// the message of the pod's StartedFromPool event; the worker then starts the pod's start
// sequence (Start). An error before the move leaves the member one (the caller discards it);
// after the move, only register fails it (ErrClosed: what exists of the pod is then left,
// without its record, to the next startup garbage collection, as for a cold start cut the same
// way).
func (m *Member) Claim(ctx context.Context, w Pod, spec, recorded api.PodSpec, register func() error) (string, error) {
	t0 := time.Now()
	tr := &m.trace
	tr.begin(t0)
	if m.dead.Load() {
		return "", fmt.Errorf("%w: a created process is gone", errStale)
	}
	cs, _, ok := w.Containers()
	if !ok {
		return "", fmt.Errorf("%w: its loop ended", errStale)
	}
	images := map[string]string{}
	for _, c := range cs {
		if !c.Task {
			return "", fmt.Errorf("%w: container %q has no task", errStale, c.Name)
		}
		images[c.Image] = c.ImageID
	}
	for name, id := range images {
		if err := m.checkImageDigest(ctx, name, id); err != nil {
			return "", err
		}
	}
	t1 := time.Now()
	tr.markAt("checks", t1)
	release, err := poddir.LockPods(m.env.StateDir, syscall.LOCK_SH)
	if err != nil {
		return "", err
	}
	failpoint.Hit("take.locked") // checked, the pods' lock held; still a member
	sb := m.env.Sandbox
	oldDir, newDir := sb.Dir(), filepath.Join(layout.PodsDir(m.env.StateDir), spec.Name)
	if err := poddir.RenameNoReplace(oldDir, newDir); err != nil {
		release()
		return "", err
	}
	failpoint.Hit("take.renamed") // pods/<name> without pod.json; no link at the member's path
	// What holds paths under the member's directory (the shim's logger, the log writer's
	// rotation) still finds them; the link goes once dangling (see gc.collectPool, SweepLinks).
	if err := os.Symlink(filepath.Join("..", "pods", spec.Name), oldDir); err != nil {
		m.env.Log.Warn("warm pool: link from the member's directory", "err", err)
	}
	tr.mark("rename")
	rebase := func(path string) string {
		rel, err := filepath.Rel(oldDir, path)
		if path == "" || err != nil || strings.HasPrefix(rel, "..") {
			return path
		}
		return filepath.Join(newDir, rel)
	}
	memberHost := sb.Hostname()
	now := m.env.Now()
	age := time.Since(m.created).Round(time.Millisecond)
	log := m.env.HostLog.With("pod", spec.Name)
	m.taken = Identity{Spec: spec, Recorded: recorded, Log: log, Dir: newDir, Rebase: rebase, Now: now, Release: release}
	w.Become(m.taken) // release: once pod.json is written (the worker's run)
	tr.mark("identity")
	// The /etc files and the hostname are the pod's before its record is in place (and so
	// before any process starts: see WriteRecord), rewritten meanwhile the record is made.
	etcDone := make(chan struct{})
	m.etcDone, m.syncLater = etcDone, true
	if spec.Hostname == memberHost {
		close(etcDone) // an explicit hostname (the pool's key has it): the member's files are the pod's
	} else {
		w.Go(GoEtc, func() {
			defer close(etcDone)
			m.rewriteEtc()
		})
	}
	if err := register(); err != nil {
		<-etcDone
		release()
		return "", err
	}
	tr.mark("register")
	failpoint.Hit("take.registered") // the pod registered, its /etc files being rewritten; no pod.json
	log.Debug("warm pool: member taken", "member", m.id, "checks", t1.Sub(t0), "took", time.Since(t0))
	return fmt.Sprintf("Pod sandbox and containers taken from the warm pool (member %s, made %v ago)", m.id, age), nil
}

// rewriteEtc gives a taken member's sandbox the pod's hostname: /etc/hostname and /etc/hosts,
// and the UTS namespace's. A failure is logged: the pod starts with the member's.
func (m *Member) rewriteEtc() {
	sb, spec, log := m.env.Sandbox, &m.taken.Spec, m.taken.Log
	if err := sb.WriteEtc(spec); err != nil {
		log.Warn("warm pool: /etc files", "err", err)
	}
	if uts := sb.NSPath(sandboxns.UTS); uts != "" {
		if err := sandboxns.SetHostname(uts, spec.Hostname); err != nil {
			log.Warn("warm pool: hostname", "err", err)
		}
	}
}

// relabel gives the containers (and pause) of a taken member their pod's name (LabelPod) and
// labels, in place of the member's; everything finds a pod's containers by its UID, which
// they already have. An empty value deletes a label. ctx is the pod's life's.
func (m *Member) relabel(ctx context.Context, w Pod) {
	labels := map[string]string{podsandbox.LabelPod: m.taken.Spec.Name}
	for k := range m.env.Spec.Labels {
		labels[k] = ""
	}
	for k, v := range m.taken.Spec.Labels {
		labels[k] = v
	}
	var ctrs []tasks.Container
	cs, pause, _ := w.Containers()
	for _, c := range cs {
		if c.Ctr != nil {
			ctrs = append(ctrs, c.Ctr)
		}
	}
	if pause != nil {
		ctrs = append(ctrs, pause)
	}
	for _, ctr := range ctrs {
		if rl, ok := ctr.(tasks.Relabeler); ok {
			if err := rl.SetLabels(ctx, labels); err != nil {
				m.taken.Log.Debug("warm pool: relabel a container", "err", err)
			}
		}
	}
}

// checkImageDigest fails (errStale) unless the image name still points to digest: a member
// is made of the images its names pointed to then, and an image updated since (pulled or
// imported again) must not be handed out.
func (m *Member) checkImageDigest(ctx context.Context, name, digest string) error {
	var now string
	var found bool
	var err error
	if d, ok := m.env.Tasks.(tasks.ImageDigester); ok {
		now, found, err = d.ImageDigest(ctx, name)
	} else {
		var img tasks.Image
		img, found, err = m.env.Tasks.LocalImage(ctx, name)
		now = img.ID
	}
	if err != nil {
		return fmt.Errorf("%w: image %s: %w", errStale, name, err)
	}
	if !found || now != digest {
		return fmt.Errorf("%w: image %s is now %q, the member was made from %s", errStale, name, now, digest)
	}
	return nil
}
