package podlife

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/specfp"
	"github.com/podlife/podlife/podlife/internal/worker"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
)

// Start is start for the tests of package podlife_test: it returns as soon as the pod is
// registered, so that they can watch the start (Run is the one way a user starts a pod).
func (r *Runtime) Start(ctx context.Context, spec PodSpec) (*Pod, error) {
	w, err := r.start(ctx, spec)
	return r.handle(w), err
}

// Sandbox gives the tests of package podlife_test the pod's sandbox (its directory, namespaces
// and address), which users reach through PodStatus and Exec instead.
func (p *Pod) Sandbox() *podsandbox.Sandbox { return p.w.Sandbox() }

// Labels the tests of package podlife_test filter containerd objects by.
const (
	LabelPodUID    = labelPodUID
	LabelKind      = podsandbox.LabelKind
	LabelKindPause = podsandbox.LabelKindPause
)

// The log file layout, for the tests of package podlife_test that check what the logger wrote
// (users read logs through Pod.Logs).
type LogLine = logLine

// ParseLogLine is parseLogLine.
func ParseLogLine(line []byte) (LogLine, bool) { return parseLogLine(line) }

// LogPath is the CRI-format log file of c's current attempt ("" until created).
func LogPath(c *Container) string { return worker.LogPath(c) }

// LogFiles is logFiles.
func (r PodRecord) LogFiles(container string) []string { return r.logFiles(container) }

// WriteLegacyRecord rewrites the pod's pod.json as podlife before keyed fingerprints wrote it
// (up to 465b4ee): the spec with its env values, command, args and files volumes' data, and
// unkeyed fingerprints. For the tests that older records still adopt and remove.
func (h *Pod) WriteLegacyRecord() error {
	p := h.w
	spec := p.Spec()
	spec.StartPolicy, spec.PullCredentials = nil, nil
	strip := func(cs []ContainerSpec) []ContainerSpec {
		out := make([]ContainerSpec, len(cs))
		for i, c := range cs {
			c.PostStart, c.PreStop = nil, nil
			c.StartupProbe, c.ReadinessProbe, c.LivenessProbe = nil, nil, nil
			c.OCIHook = nil
			out[i] = c
		}
		return out
	}
	spec.InitContainers, spec.Containers = strip(spec.InitContainers), strip(spec.Containers)
	b, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	ps := p.Spec()
	fields := specfp.Fields(ps, nil)
	return poddir.WriteJSON(filepath.Join(p.Sandbox().Dir(), recordFile), podRecord{
		Name: p.Name(), Namespace: ps.Namespace, UID: p.UID(), Created: p.StartTime(),
		OwnerPID: os.Getpid(), Control: h.rt.control.path(), Grace: worker.GracePeriod(&ps),
		HostNetwork: ps.HostNetwork, Ports: worker.PortMappings(&ps),
		SpecHash: specfp.Hash(fields), SpecFields: fields, ShimGroup: p.ShimGroup(), Spec: b,
	})
}

// WithoutSystemContainerd returns cfg with Embedded.IgnoreSystem set: the tests of the private
// containerd use it so that they run on a host whose system containerd serves, and never touch
// that daemon. Set Embedded's other fields before calling it.
func WithoutSystemContainerd(cfg Config) Config {
	cfg.Embedded.IgnoreSystem = true
	return cfg
}
