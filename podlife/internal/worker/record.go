package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/specfp"
)

// Files in a pod's directory that let another process find the pod again.
const (
	RecordFile = "pod.json"    // Record: who manages the pod, what removing it takes
	StatusFile = "status.json" // the pod's PodStatus, rewritten on every change by its manager
)

// Record is pod.json: written once when the pod starts, read by other processes (ListPods,
// Pod.Stop, Pod.Remove) and by a process cleaning up after a manager that died.
type Record struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace"`
	UID         string            `json:"uid"`
	Created     time.Time         `json:"created"`
	OwnerPID    int               `json:"ownerPID"`
	Control     string            `json:"control,omitempty"` // the manager's control socket
	Grace       time.Duration     `json:"grace"`
	HostNetwork bool              `json:"hostNetwork,omitempty"`
	Ports       []cni.PortMapping `json:"ports,omitempty"`
	// SpecMAC and SpecMACs fingerprint the spec (see specfp.Fields), keyed with the state dir's
	// key whose ID is SpecKey (see speckey.go): an adopter's spec must match.
	SpecMAC  string            `json:"specMAC,omitempty"`
	SpecMACs map[string]string `json:"specMACs,omitempty"`
	SpecKey  string            `json:"specKey,omitempty"`
	// SpecHash and SpecFields are the unkeyed fingerprints of records written by older
	// managers: read (their pods are adopted against them), never written. A manager that
	// does not know SpecMAC sees no fingerprint and adopts unchecked.
	SpecHash   string            `json:"specHash,omitempty"`
	SpecFields map[string]string `json:"specFields,omitempty"`
	// ShimGroup is the pod's runc shim group (see Pod.shimGroup), for an adopter's restarts.
	ShimGroup string `json:"shimGroup,omitempty"`
	// Spec is the pod's spec without its Go code, credentials and values (see StoppableSpec):
	// what a process without the spec needs to stop and remove the pod with the core's own
	// stop and remove (Pod.Stop, Pod.Remove of a pod whose manager is gone).
	// Older managers' records have env values and files volumes' data in it.
	Spec json.RawMessage `json:"spec,omitempty"`
	// Network is the network the pod is attached to (see cni.Record): its removal, by any
	// process, releases the pod's attachment with it. Older records have none: their pods are
	// released with the remover's own network.
	Network *cni.Record `json:"network,omitempty"`
	// ActiveDeadline is the deadline set on the running pod (Pod.SetActiveDeadline), shorter
	// than the spec's or where it had none; Spec and the fingerprints keep the spec as started
	// (see DeadlineUpdate). Nil: the spec's.
	ActiveDeadline *time.Duration `json:"activeDeadline,omitempty"`
}

func (p *Worker) writeRecord() error {
	p.recordMu.Lock()
	defer p.recordMu.Unlock()
	if p.dirUnlock != nil {
		defer p.dirUnlock()
		p.dirUnlock = nil // once: an adopter writes the record again
	}
	key, err := p.rt.SpecKey()
	if err != nil {
		return fmt.Errorf("pod record: %w", err)
	}
	// The recorded form, not the defaulted spec: records keep what they always kept.
	fields := specfp.Fields(p.recorded, key)
	spec, err := json.Marshal(StoppableSpec(p.recorded))
	if err != nil {
		return fmt.Errorf("pod record: spec: %w", err)
	}
	rec := Record{
		Name: p.name, Namespace: p.spec.Namespace, UID: p.uid, Created: p.startTime,
		OwnerPID: os.Getpid(), Control: p.rt.ControlPath(), Grace: GracePeriod(&p.spec),
		HostNetwork: p.spec.HostNetwork, Ports: PortMappings(&p.spec),
		SpecMAC: specfp.Hash(fields), SpecMACs: fields, SpecKey: specfp.KeyID(key),
		ShimGroup: p.shimGroup(), Spec: spec, Network: p.netRecord,
	}
	p.deadlineMu.Lock()
	rec.ActiveDeadline = p.deadlineSet
	p.deadlineMu.Unlock()
	if old := p.stopRecord; old != nil {
		// Adopted to be stopped, from the record's spec: the fingerprints are those of the
		// spec the pod was started with (an older manager's unkeyed ones stay until an
		// adoption with the full spec writes keyed ones).
		rec.SpecMAC, rec.SpecMACs, rec.SpecKey = old.SpecMAC, old.SpecMACs, old.SpecKey
		rec.SpecHash, rec.SpecFields = old.SpecHash, old.SpecFields
	}
	return p.writeRecordFile(filepath.Join(p.sandbox.dir, RecordFile), rec)
}

// persistStatus rewrites status.json whenever the status changes, until quit is closed. Changes
// that come faster than the writes are coalesced: the file always ends with the latest status.
func (p *Worker) persistStatus(quit <-chan struct{}) {
	defer close(p.persisted)
	path := filepath.Join(p.sandbox.dir, StatusFile)
	var last []byte
	write := func() {
		b, err := json.Marshal(p.Status())
		if err == nil && !bytes.Equal(b, last) {
			failpoint.Hit("status.write")
			if err := poddir.WriteAtomic(path, b); err != nil && !errors.Is(err, fs.ErrNotExist) {
				p.log.Debug("persist status", "err", err)
			}
			last = b
			failpoint.Hit("status.written")
		}
	}
	for {
		ch := p.view().notify
		write()
		select {
		case <-ch:
		case <-quit:
			return
		case <-p.rt.Closing:
			// A change may have come with the close (select picks at random): the file is what
			// other processes know of the pod from now on, so it ends with the latest status.
			write()
			return
		}
	}
}

// StoppableSpec is spec without what cannot or must not be persisted: Go hooks and probers (and
// with them exec ones: a stop without the manager runs no hooks), the start policy, OCIHook,
// pull credentials, and every value that may be a secret: env values (from a Secret, or set
// by a Go program, which may hold anything), command and args (a manifest's $(VAR) expands
// env values into them), and files volumes' data (their paths and modes stay). None of these
// is needed to stop or remove a pod; the record's fingerprints (see specfp.Fields, keyed) are
// what tells a changed value at an adoption.
func StoppableSpec(spec PodSpec) PodSpec {
	spec.StartPolicy, spec.PullCredentials = nil, nil
	strip := func(cs []ContainerSpec) []ContainerSpec {
		out := make([]ContainerSpec, len(cs))
		for i, c := range cs {
			c.PostStart, c.PreStop = nil, nil
			c.StartupProbe, c.ReadinessProbe, c.LivenessProbe = nil, nil, nil
			c.OCIHook = nil
			c.Env, c.Command, c.Args = nil, nil, nil
			out[i] = c
		}
		return out
	}
	spec.InitContainers, spec.Containers = strip(spec.InitContainers), strip(spec.Containers)
	vols := make([]Volume, len(spec.Volumes))
	for i, v := range spec.Volumes {
		if v.Files != nil {
			fv := *v.Files
			fv.Files = make([]File, len(v.Files.Files))
			for j, f := range v.Files.Files {
				fv.Files[j] = File{Path: f.Path, Mode: f.Mode}
			}
			v.Files = &fv
		}
		vols[i] = v
	}
	if spec.Volumes != nil {
		spec.Volumes = vols
	}
	return spec
}
