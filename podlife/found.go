package podlife

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/poddir"
)

// PodRecord is what the state directory and containerd say of a pod, whichever process manages
// it: this Runtime, another process using the same state directory (a CLI's background
// supervisor, an agent), or none, if its manager died.
type PodRecord struct {
	Name      string    `json:"name"`
	Namespace string    `json:"namespace"`
	UID       string    `json:"uid"`
	Created   time.Time `json:"created"`
	// Dir is the pod's directory (logs are under Dir/logs/<container>/<attempt>.log).
	Dir string `json:"dir"`
	// Manager is the PID of the process managing the pod, 0 if it is gone. A pod with no
	// manager is not supervised: nothing restarts or probes its containers.
	Manager int `json:"manager"`
	// Status is the manager's latest status. Without a manager, running containers are checked
	// against containerd: those whose task ended are shown terminated, and nothing is ready.
	Status PodStatus `json:"status"`
}

// Managed reports whether a live process manages the pod.
func (r PodRecord) Managed() bool { return r.Manager != 0 }

// logFiles returns the container's log files (CRI format, see parseLogLine), oldest attempt
// first: the last one is the current attempt's, the one before it the previous attempt's
// (kubectl logs --previous). An invalid container name (see NameError) has no files.
func (r PodRecord) logFiles(container string) []string {
	if checkName("container", container) != nil {
		return nil // names no container: not a path to join
	}
	dir := filepath.Join(r.Dir, "logs", container)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	type file struct {
		attempt int
		path    string
	}
	var files []file
	for _, e := range entries {
		n, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".log"))
		if err != nil || !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		files = append(files, file{n, filepath.Join(dir, e.Name())})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].attempt < files[j].attempt })
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.path
	}
	return out
}

// ListPods returns every pod in the state directory, sorted by name: this Runtime's pods and
// those of other processes (see PodRecord). Pods of this Runtime show their live status.
func (r *Runtime) ListPods(ctx context.Context) ([]PodRecord, error) {
	entries, err := os.ReadDir(filepath.Join(r.cfg.StateDir, "pods"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("podlife: list pods: %w", err)
	}
	var out []PodRecord
	for _, e := range entries {
		if checkName("pod", e.Name()) != nil {
			continue // not a pod's directory
		}
		rec, err := r.LookupPod(ctx, e.Name())
		if errors.Is(err, ErrNotFound) {
			continue // being created or removed
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// LookupPod returns the record of the named pod, whichever process manages it, or an error
// wrapping ErrNotFound. A name that is not a valid pod name (a DNS-1123 label) is refused with a
// *NameError before it is used.
func (r *Runtime) LookupPod(ctx context.Context, name string) (PodRecord, error) {
	if err := checkName("pod", name); err != nil {
		return PodRecord{}, err
	}
	dir := filepath.Join(r.cfg.StateDir, "pods", name)
	var rec podRecord
	if err := poddir.ReadJSON(filepath.Join(dir, recordFile), &rec); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return PodRecord{}, fmt.Errorf("pod %q: %w", name, ErrNotFound)
		}
		return PodRecord{}, fmt.Errorf("pod %q: %w", name, err)
	}
	out := PodRecord{Name: rec.Name, Namespace: rec.Namespace, UID: rec.UID, Created: rec.Created, Dir: dir}
	if p, err := r.worker(name); err == nil && p.UID() == rec.UID {
		out.Manager, out.Status = os.Getpid(), p.Status()
		return out, nil
	}
	if err := poddir.ReadJSON(filepath.Join(dir, statusFile), &out.Status); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return PodRecord{}, fmt.Errorf("pod %q: status: %w", name, err)
	}
	out.Status.Name = name
	// Our own socket names a pod this Runtime no longer has (its Remove failed half-way): no
	// manager, though the socket answers.
	if rec.Control != r.control.path() && answers(rec.Control) {
		out.Manager = rec.OwnerPID
		return out, nil
	}
	r.reconcile(ctx, &rec, &out.Status, nil)
	return out, nil
}

// reconcile corrects the last status an unmanaged pod's manager wrote with what containerd
// knows now: a container whose task ended is terminated; nothing is ready. exits has the exit
// statuses of tasks just deleted (by container ID), which containerd no longer knows.
func (r *Runtime) reconcile(ctx context.Context, rec *podRecord, st *PodStatus, exits map[string]ctrd.ExitStatus) {
	ctx = r.ctx(ctx)
	if st.Reason == "" {
		st.Reason = "Unmanaged"
		st.Message = fmt.Sprintf("the process that managed the pod (pid %d) is gone: nothing supervises it", rec.OwnerPID)
	}
	fix := func(cs []ContainerStatus) {
		for i := range cs {
			c := &cs[i]
			c.Ready = false
			if c.State.Running == nil {
				continue
			}
			started := c.State.Running.StartedAt
			id := strings.TrimPrefix(c.ContainerID, "containerd://")
			term := &StateTerminated{ExitCode: -1, Reason: "Unknown", StartedAt: started}
			if s, ok := exits[id]; ok {
				term = terminatedAt(int(s.ExitCode()), started, s.ExitTime())
			} else if ctr, err := r.tasks.LoadContainer(ctx, id, ""); err == nil {
				if task, err := ctr.LoadTask(ctx); err == nil {
					if s, err := task.Status(ctx); err == nil {
						if s.Status == ctrd.Running || s.Status == ctrd.Paused {
							continue
						}
						term = terminatedAt(int(s.ExitStatus), started, s.ExitTime)
					}
				}
			}
			c.State = ContainerState{Terminated: term}
		}
	}
	fix(st.InitContainerStatuses)
	fix(st.ContainerStatuses)
	fix(st.EphemeralContainerStatuses)
	st.Phase = computePhase(byPolicy(RestartNever), false, st.InitContainerStatuses, st.ContainerStatuses, nil)
	for i := range st.Conditions {
		if st.Conditions[i].Type == PodReady || st.Conditions[i].Type == ContainersReady {
			st.Conditions[i].Status = ConditionFalse
		}
	}
}

// setConditionRemote sets a condition of the named pod that this Runtime does not manage (see
// Pod.SetCondition): its manager is asked through its control socket. A pod without a live
// manager has no conditions to change: that is an error wrapping ErrNotFound.
func (r *Runtime) setConditionRemote(ctx context.Context, name string, t ConditionType, status ConditionStatus, reason, message string) error {
	if err := validateCondition(name, t, status); err != nil {
		return fmt.Errorf("set condition: %w", err)
	}
	var rec podRecord
	if err := poddir.ReadJSON(filepath.Join(r.cfg.StateDir, "pods", name, recordFile), &rec); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("pod %q: %w", name, ErrNotFound)
		}
		return fmt.Errorf("pod %q: %w", name, err)
	}
	err := ask(ctx, rec.Control, controlRequest{Op: "condition", Pod: name,
		Condition: &conditionRequest{Type: t, Status: status, Reason: reason, Message: message}})
	if errors.Is(err, errNoManager) {
		return fmt.Errorf("pod %q: no process manages it (pid %d is gone): %w", name, rec.OwnerPID, ErrNotFound)
	}
	return err
}

// foreign stops (op "stop") or removes (op "remove") the named pod that this Runtime does not
// manage (see Pod.Stop): its manager is asked through its control socket, and a pod without a
// live manager is adopted here for the purpose (stopUnmanaged).
func (r *Runtime) foreign(ctx context.Context, name, op string, opts []StopOption) error {
	if err := checkName("pod", name); err != nil {
		return err // checked by every caller; here too, as this joins it into a path
	}
	var o stopOptions
	for _, opt := range opts {
		opt(&o)
	}
	dir := filepath.Join(r.cfg.StateDir, "pods", name)
	var rec podRecord
	if err := poddir.ReadJSON(filepath.Join(dir, recordFile), &rec); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("pod %q: %w", name, ErrNotFound)
		}
		return fmt.Errorf("pod %q: %w", name, err)
	}
	err := ask(ctx, rec.Control, controlRequest{Op: op, Pod: name, Grace: o.grace})
	switch {
	case errors.Is(err, errNoManager):
	case errors.Is(err, errManagerLost) && !processAlive(rec.OwnerPID):
		// Killed while it listened: the socket took the connection, nobody answered. Stop
		// and remove are idempotent, so acting here is safe whatever it did first.
	case errors.Is(err, ErrNotFound):
		// The manager answers but no longer has the pod: its Remove failed half-way (a CNI
		// DEL that failed, say) and left the directory for a retry. Nothing supervises it.
		// (Or its Remove just succeeded: then the record is gone.)
		var again podRecord
		if err := poddir.ReadJSON(filepath.Join(dir, recordFile), &again); err != nil || again.UID != rec.UID {
			return fmt.Errorf("pod %q: %w", name, ErrNotFound)
		}
		r.log.Info("the pod's manager no longer has it; acting on what is left", "pod", name, "manager", rec.OwnerPID)
	default:
		return err
	}
	if rec.Control == "" && processAlive(rec.OwnerPID) {
		// A manager without a control socket may still run: acting behind its back would race
		// its restarts.
		return fmt.Errorf("pod %q: its manager (pid %d) has no control socket; stop it there", name, rec.OwnerPID)
	}
	r.log.Info("pod has no manager; adopting it to act on it", "pod", name, "op", op, "manager", rec.OwnerPID)
	return r.stopUnmanaged(ctx, dir, op, rec, o)
}

// processAlive reports whether a process with that PID exists (and is not a zombie).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(b), ") Z ")
}
