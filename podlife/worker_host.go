package podlife

import (
	"net/netip"

	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/podlife/podlife/podlife/internal/hostlookup"
	"github.com/podlife/podlife/podlife/internal/worker"
	"github.com/podlife/podlife/podlife/internal/worker/imagepull"
)

// workerHost returns the Host the Runtime gives its workers, made on first use: by then New
// (or a test) has set the Runtime's tasks and network.
func (r *Runtime) workerHost() *worker.Host {
	r.hostOnce.Do(func() { r.host = r.newHost() })
	return r.host
}

// newHost fills the Host from the Runtime: its settings (defaults applied), services and
// answers about containerd and its own life.
func (r *Runtime) newHost() *worker.Host {
	cfg := &r.cfg
	hc := worker.HostConfig{
		Namespace: cfg.Namespace, StateDir: cfg.StateDir, ContainerLogger: cfg.ContainerLogger, ExecGate: cfg.ExecGate,
		ShimPerContainer: cfg.Shims == ShimPerContainer, ShimShared: cfg.Shims == ShimShared,
		Logs:                              cfg.Logs.crilog(),
		EvictionPeriod:                    cfg.Eviction.Period,
		AllowPrivilegeEscalationByDefault: cfg.AllowPrivilegeEscalationByDefault,
	}
	if bo := cfg.ImagePullBackOff; bo != nil {
		hc.ImagePullBackOff = &imagepull.Backoff{Initial: bo.Initial, Max: bo.Max}
	}
	return &worker.Host{
		Cfg: hc, Log: r.log, Events: r.events, Clock: r.clock, Tasks: r.tasks, Ctrd: r.ctrd,
		Backoff: r.backoff, ShimGroups: r.shimGroups, Address: r.address,
		Network: r.network, NetworkRecord: r.networkRecord,
		Closing: r.closing, IsClosed: r.isClosed, Ctx: r.ctx,
		LostConn: r.conn.LostConn, Retry: r.conn.Retry, WaitConnected: r.conn.WaitConnected, WaitErr: r.conn.WaitErr,
		Disconnected: r.conn.Disconnected, ConnUp: r.conn.Up, ConnLostCh: r.conn.LostCh,
		Forget: r.forget, ControlPath: r.control.path, SpecKey: r.specKey, RealDir: r.realDir,
		PublishProbe: r.probes.publish, SharedLogger: r.sharedLogger,
		HostIPs:     func() ([]netip.Addr, error) { return hostlookup.HostIPs(cfg.HostIPs) },
		PauseBinary: func() (string, error) { return hostlookup.PauseBinary(cfg.PauseBinary) },
		LoadSeccompProfile: func(name string) (*specs.LinuxSeccomp, error) {
			return hostlookup.SeccompProfile(cfg.SeccompProfileRoot, name)
		},
		AdmitPodSecurity: cfg.admitPodSecurity, AdmitContainerSecurity: cfg.admitContainerSecurity,
	}
}
