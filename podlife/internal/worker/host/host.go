package host

import (
	"context"
	"log/slog"
	"net/netip"
	"time"

	"github.com/opencontainers/runtime-spec/specs-go"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/cni"
	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/internal/crilog"
	"github.com/podlife/podlife/internal/restart"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ctrd"
	"github.com/podlife/podlife/podlife/internal/eventbus"
	"github.com/podlife/podlife/podlife/internal/shimgroup"
	"github.com/podlife/podlife/podlife/internal/tasks"
	"github.com/podlife/podlife/podlife/internal/worker/imagepull"
	"github.com/podlife/podlife/podlife/internal/worker/probing"
)

// Host is what a Runtime gives each of its workers (of type W): its settings, the services the
// workers share, and the Runtime's answers about the connection to containerd and its own life.
// The Runtime fills it once (New) and every worker reads it; nothing in it is a worker's state.
// The worker never sees the Runtime itself.
type Host[W any] struct {
	Cfg Config

	Log     *slog.Logger
	Events  *eventbus.Bus // the Runtime's bus, each pod's bus's parent
	Clock   clock.Clock
	Tasks   tasks.Runtime    // containerd (and the host) under the pods' supervision
	Ctrd    *ctrd.Client     // the containerd client (snapshot usage only); nil in fake-runtime tests
	Backoff *restart.Tracker // the containers' crash-loop back-off, shared by the Runtime's pods
	// ShimGroups are the pods' shared shims (Config.Shims ShimShared).
	ShimGroups *shimgroup.Groups
	Address    string // the containerd socket in use

	// Network is the network a new pod is attached to, and NetworkRecord its description in the
	// pod's record.
	Network       cni.Network
	NetworkRecord func() *cni.Record

	// Closing is closed when the Runtime is closed; IsClosed reports it.
	Closing  <-chan struct{}
	IsClosed func() bool
	// Ctx returns a context for containerd calls in the Runtime's namespace.
	Ctx func(parent context.Context) context.Context

	// The connection to containerd (see package conn): LostConn reports whether
	// err means containerd went away (and starts the reconnection); Retry runs call until it
	// succeeds or fails for another reason than a lost connection; WaitConnected waits until
	// containerd answers; WaitErr is the error of a call that needs containerd while it is away;
	// Disconnected reports whether it is away now; ConnUp is closed once it is back, ConnLostCh
	// once it is lost (each the channel of the current connection state).
	LostConn      func(ctx context.Context, err error) bool
	Retry         func(ctx context.Context, call func() error) error
	WaitConnected func(ctx context.Context) error
	WaitErr       func(ctx context.Context) error
	Disconnected  func() bool
	ConnUp        func() <-chan struct{}
	ConnLostCh    func() <-chan struct{}

	// HostIPs is the host's IPs (status.hostIPs, the downward API's status.hostIP).
	HostIPs func() ([]netip.Addr, error)
	// Forget drops a removed (or detached) pod from the Runtime's table, if w is the pod of its
	// name there, and releases the pod's adoption lock if the Runtime adopted it.
	Forget func(w W)
	// ControlPath is the Runtime's control socket, recorded in each pod's record.
	ControlPath func() string
	// SpecKey is the state dir's key of spec fingerprints.
	SpecKey func() ([]byte, error)
	// RealDir is path under the state dir as /proc/self/mountinfo shows it.
	RealDir func(path string) string
	// PublishProbe delivers a probe result to the Runtime's probe subscribers.
	PublishProbe func(probing.Result)
	// SharedLogger reports whether containers hand their output to the shared logger.
	SharedLogger func() bool
	// PauseBinary finds the pause process's binary (ErrNoPauseBinary if none).
	PauseBinary func() (string, error)
	// LoadSeccompProfile reads a Localhost seccomp profile.
	LoadSeccompProfile func(name string) (*specs.LinuxSeccomp, error)
	// AdmitPodSecurity and AdmitContainerSecurity are the Runtime's admission checks, applied
	// to an ephemeral container.
	AdmitPodSecurity       func(spec *api.PodSpec, ephemerals []api.ContainerSpec) error
	AdmitContainerSecurity func(path *field.Path, sc *api.SecurityContext) field.ErrorList
}

// Config is the part of the Runtime's Config the workers read (defaults applied).
type Config struct {
	Namespace       string
	StateDir        string
	ContainerLogger string
	// ExecGate is the gate program of warm pool members' containers ("": none; see
	// internal/execgate).
	ExecGate string
	// ShimPerContainer and ShimShared say how the pods' shims are shared (Config.Shims).
	ShimPerContainer, ShimShared bool
	// ImagePullBackOff is the image pull back-off (nil: none).
	ImagePullBackOff *imagepull.Backoff
	Logs             crilog.Limits
	// EvictionPeriod is how often a pod's storage is measured against its limits.
	EvictionPeriod time.Duration
	// AllowPrivilegeEscalationByDefault is Config's.
	AllowPrivilegeEscalationByDefault bool
}
