package podlife

import "context"

// Start is start for the tests of package podlife_test: it returns as soon as the pod is
// registered, so that they can watch the start (Run is the one way a user starts a pod).
func (r *Runtime) Start(ctx context.Context, spec PodSpec) (*Pod, error) { return r.start(ctx, spec) }

// Sandbox gives the tests of package podlife_test the pod's sandbox (its directory, namespaces
// and address), which users reach through PodStatus and Exec instead.
func (p *Pod) Sandbox() *podSandbox { return p.sandbox }

// Labels the tests of package podlife_test filter containerd objects by.
const (
	LabelPodUID    = labelPodUID
	LabelKind      = labelKind
	LabelKindPause = labelKindPause
)

// The log file layout, for the tests of package podlife_test that check what the logger wrote
// (users read logs through Runtime.Logs).
type LogLine = logLine

// ParseLogLine is parseLogLine.
func ParseLogLine(line []byte) (LogLine, bool) { return parseLogLine(line) }

// LogPath is logPath.
func (c *Container) LogPath() string { return c.logPath() }

// LogFiles is logFiles.
func (r PodRecord) LogFiles(container string) []string { return r.logFiles(container) }
