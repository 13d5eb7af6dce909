package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/podlife/podlife/podlife"
)

// agentStatus is what the agent reports: every manifest file and every pod it owns.
type agentStatus struct {
	Time  time.Time    `json:"time"`
	Files []fileResult `json:"files"`
	Pods  []podReport  `json:"pods"`
}

// podReport is one pod of the agent.
type podReport struct {
	Name string `json:"name"`
	File string `json:"file"`
	Hash string `json:"hash"`
	// State is Managed, Found, Unmanaged or Failed (see podState).
	State podState `json:"state"`
	// Operation is the operation in flight (run, replace, adopt, remove), if any.
	Operation actionKind `json:"operation,omitempty"`
	// Error is the last operation's error.
	Error string `json:"error,omitempty"`
	// Status is the pod's status, when it exists.
	Status *podlife.PodStatus `json:"status,omitempty"`
}

// snapshot returns the agent's status. Pods the agent does not manage (found, unmanaged) are
// looked up in the state dir.
func (a *agent) snapshot(ctx context.Context) agentStatus {
	a.mu.Lock()
	st := agentStatus{Time: time.Now().UTC()}
	for _, name := range slices.Sorted(maps.Keys(a.files)) {
		st.Files = append(st.Files, a.files[name])
	}
	var lookup []int
	for _, e := range a.pods {
		r := podReport{Name: e.Name, File: e.File, Hash: e.Hash, State: e.State, Operation: e.Op, Error: e.err}
		switch p, err := a.rt.Pod(e.Name); {
		case e.pod != nil:
			s := e.pod.Status()
			r.Status = &s
		case err == nil:
			// Being run (waiting for its image, say): this runtime's pod, before Run returned.
			s := p.Status()
			r.Status = &s
		case e.State == stateFound || e.State == stateUnmanaged:
			lookup = append(lookup, len(st.Pods))
		}
		st.Pods = append(st.Pods, r)
	}
	a.mu.Unlock()
	for _, i := range lookup {
		rec, err := a.rt.LookupPod(ctx, st.Pods[i].Name)
		switch {
		case err == nil:
			st.Pods[i].Status = &rec.Status
		case errors.Is(err, podlife.ErrNotFound) && st.Pods[i].State == stateUnmanaged:
			a.forget(st.Pods[i].Name)
		}
	}
	slices.SortFunc(st.Pods, func(x, y podReport) int { return strings.Compare(x.Name, y.Name) })
	return st
}

// statusWriter writes the agent's status next to the manifests, in dotfiles the agent does
// not read as manifests: <dir>/.status/pods/<pod>.json for each pod it owns and
// <dir>/.status/files/<file>.json for each manifest file, following no symlink (statusfs.go).
// It keeps the latest status for the HTTP endpoint too.
type statusWriter struct {
	manifests string // the manifest directory, resolved
	log       *slog.Logger

	mu      sync.Mutex
	latest  agentStatus
	written map[string][]byte // "<sub>/<file>" -> content written last
}

func newStatusWriter(manifestDir string, log *slog.Logger) *statusWriter {
	return &statusWriter{manifests: manifestDir, log: log, written: map[string][]byte{}}
}

// write writes what changed since the last write and removes the files of pods and manifests
// that are gone. A nil status removes everything (the agent removed its pods).
func (w *statusWriter) write(_ context.Context, st *agentStatus) {
	w.mu.Lock()
	defer w.mu.Unlock()
	want := map[string]map[string][]byte{"files": {}, "pods": {}}
	if st != nil {
		w.latest = *st
		for _, f := range st.Files {
			want["files"][f.File+".json"] = marshal(f)
		}
		for _, p := range st.Pods {
			want["pods"][p.Name+".json"] = marshal(p)
		}
	} else {
		w.latest = agentStatus{Time: time.Now().UTC()}
	}
	for _, sub := range []string{"files", "pods"} {
		d, err := openStatusDir(w.manifests, ".status", sub)
		if err != nil {
			w.log.Error("status", "err", err)
			return
		}
		removed, err := d.prune(func(name string) bool { _, ok := want[sub][name]; return ok })
		for _, name := range removed {
			delete(w.written, sub+"/"+name)
		}
		if err != nil {
			w.log.Error("status", "err", err)
		}
		for name, b := range want[sub] {
			if bytes.Equal(w.written[sub+"/"+name], b) {
				continue
			}
			if err := d.write(name, b, 0o644); err != nil {
				w.log.Error("status", "err", err)
				continue
			}
			w.written[sub+"/"+name] = b
		}
		d.close()
	}
}

// agentInfo is <dir>/.status/agent.json: which agent writes the status. It is removed when the
// agent exits; after a crash it stays, naming a process that is gone.
type agentInfo struct {
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"startedAt"`
	Node      string    `json:"node,omitempty"`
}

// writeAgent writes agent.json; the returned func removes it.
func (w *statusWriter) writeAgent(info agentInfo) (remove func(), err error) {
	d, err := openStatusDir(w.manifests, ".status")
	if err != nil {
		return nil, err
	}
	defer d.close()
	if err := d.write("agent.json", marshal(info), 0o644); err != nil {
		return nil, err
	}
	return func() {
		d, err := openStatusDir(w.manifests, ".status")
		if err == nil {
			err = d.remove("agent.json")
			d.close()
		}
		if err != nil {
			w.log.Error("status", "err", err)
		}
	}, nil
}

func marshal(v any) []byte {
	b, _ := json.MarshalIndent(v, "", "  ")
	return append(b, '\n')
}

// ServeHTTP serves the latest status as JSON on GET /status, and "ok" on GET /healthz.
func (w *statusWriter) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/healthz":
		rw.Write([]byte("ok\n"))
	case "/status":
		w.mu.Lock()
		b := marshal(w.latest)
		w.mu.Unlock()
		rw.Header().Set("Content-Type", "application/json")
		rw.Write(b)
	default:
		http.NotFound(rw, r)
	}
}
