package cri

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podlife/podlife/internal/bench/measure"
)

// kubeletGracePeriod is StopContainer's timeout as the kubelet passes it for a pod deleted
// with the default terminationGracePeriodSeconds (30; never under its 2 s minimum). The
// containers' stop signal is SIGKILL (lifecycle.stopSignal, as podlife's StopSignal), so
// no stop waits for it.
const kubeletGracePeriod = 30

// criPod is a pod started through the CRI plugin.
type criPod struct {
	name, uid, dir string
	sandboxID      string
	sandboxConfig  *runtimeapi.PodSandboxConfig
	containerIDs   []string
	// steps is the time spent in each kind of call of the start (criSteps), summed over the
	// containers.
	steps [len(criSteps)]time.Duration
}

// criSteps name the start's calls, in criPod.steps' order.
var criSteps = [...]string{"RunPodSandbox", "CreateContainer", "StartContainer", "other"}

// runCRIPod starts the bench pod the way the kubelet's SyncPod does for a new pod:
// RunPodSandbox, PodSandboxStatus (the pod IP), then for each container in spec order
// ImageStatus (EnsureImageExists, image present), CreateContainer and StartContainer. Like the
// kubelet, it writes the pod's /etc/hosts and each container's termination-log file first and
// mounts them. It returns the pod even on error, for cleanup.
func (d *criDaemon) runCRIPod(ctx context.Context, name, uid string) (*criPod, error) {
	p := &criPod{name: name, uid: uid, dir: filepath.Join(d.dir, "pods", uid)}
	if err := os.MkdirAll(filepath.Join(p.dir, "logs"), 0o755); err != nil {
		return p, err
	}
	hosts := filepath.Join(p.dir, "etc-hosts")
	if err := os.WriteFile(hosts, []byte("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"), 0o644); err != nil {
		return p, err
	}
	nsOpts := &runtimeapi.NamespaceOption{Network: runtimeapi.NamespaceMode_POD, Pid: runtimeapi.NamespaceMode_CONTAINER, Ipc: runtimeapi.NamespaceMode_POD}
	runtimeDefault := &runtimeapi.SecurityProfile{ProfileType: runtimeapi.SecurityProfile_RuntimeDefault}
	p.sandboxConfig = &runtimeapi.PodSandboxConfig{
		Metadata:     &runtimeapi.PodSandboxMetadata{Name: name, Namespace: "default", Uid: uid},
		Hostname:     name,
		LogDirectory: filepath.Join(p.dir, "logs"),
		Labels: map[string]string{"io.kubernetes.pod.name": name, "io.kubernetes.pod.namespace": "default",
			"io.kubernetes.pod.uid": uid},
		Linux: &runtimeapi.LinuxPodSandboxConfig{
			CgroupParent:    d.cgroupParent + "/pod" + uid,
			SecurityContext: &runtimeapi.LinuxSandboxSecurityContext{NamespaceOptions: nsOpts, Seccomp: runtimeDefault},
		},
	}
	t0 := time.Now()
	defer func() { p.steps[3] = time.Since(t0) - p.steps[0] - p.steps[1] - p.steps[2] }()
	t := time.Now()
	sb, err := d.rt.RunPodSandbox(ctx, &runtimeapi.RunPodSandboxRequest{Config: p.sandboxConfig})
	p.steps[0] = time.Since(t)
	if err != nil {
		return p, fmt.Errorf("RunPodSandbox: %w", err)
	}
	p.sandboxID = sb.PodSandboxId
	if _, err := d.rt.PodSandboxStatus(ctx, &runtimeapi.PodSandboxStatusRequest{PodSandboxId: p.sandboxID}); err != nil {
		return p, fmt.Errorf("PodSandboxStatus: %w", err)
	}
	for _, c := range []string{"c1", "c2"} {
		if _, err := d.img.ImageStatus(ctx, &runtimeapi.ImageStatusRequest{Image: &runtimeapi.ImageSpec{Image: measure.Image}}); err != nil {
			return p, fmt.Errorf("ImageStatus: %w", err)
		}
		termLog := filepath.Join(p.dir, "termination-log-"+c)
		if err := os.WriteFile(termLog, nil, 0o644); err != nil {
			return p, err
		}
		cfg := &runtimeapi.ContainerConfig{
			Metadata: &runtimeapi.ContainerMetadata{Name: c},
			Image:    &runtimeapi.ImageSpec{Image: measure.Image},
			Command:  measure.ContainerCmd,
			LogPath:  c + "/0.log",
			Labels: map[string]string{"io.kubernetes.container.name": c, "io.kubernetes.pod.name": name,
				"io.kubernetes.pod.namespace": "default", "io.kubernetes.pod.uid": uid},
			Mounts: []*runtimeapi.Mount{
				{ContainerPath: "/etc/hosts", HostPath: hosts},
				{ContainerPath: "/dev/termination-log", HostPath: termLog},
			},
			StopSignal: runtimeapi.Signal_SIGNAL_SIGKILL,
			Linux: &runtimeapi.LinuxContainerConfig{
				// A BestEffort container, as the kubelet configures it.
				Resources: &runtimeapi.LinuxContainerResources{CpuShares: 2, OomScoreAdj: 1000},
				// podlife's defaults: the runtime's default seccomp profile, no new privileges.
				SecurityContext: &runtimeapi.LinuxContainerSecurityContext{NamespaceOptions: nsOpts,
					Seccomp: runtimeDefault, NoNewPrivs: true},
			},
		}
		t = time.Now()
		cc, err := d.rt.CreateContainer(ctx, &runtimeapi.CreateContainerRequest{PodSandboxId: p.sandboxID, Config: cfg, SandboxConfig: p.sandboxConfig})
		p.steps[1] += time.Since(t)
		if err != nil {
			return p, fmt.Errorf("CreateContainer %s: %w", c, err)
		}
		p.containerIDs = append(p.containerIDs, cc.ContainerId)
		t = time.Now()
		_, err = d.rt.StartContainer(ctx, &runtimeapi.StartContainerRequest{ContainerId: cc.ContainerId})
		p.steps[2] += time.Since(t)
		if err != nil {
			return p, fmt.Errorf("StartContainer %s: %w", c, err)
		}
	}
	return p, nil
}

// removeCRIPod tears the pod down the way the kubelet does for a deleted pod: StopContainer
// of every container at once with the grace period as timeout (killContainersWithSyncResult),
// StopPodSandbox (which tears down the network); then what its garbage collector does:
// RemoveContainer of each container, RemovePodSandbox.
func (d *criDaemon) removeCRIPod(ctx context.Context, p *criPod) error {
	if p.sandboxID == "" {
		return os.RemoveAll(p.dir)
	}
	errs := make([]error, len(p.containerIDs))
	var wg sync.WaitGroup
	for i, id := range p.containerIDs {
		wg.Go(func() {
			_, err := d.rt.StopContainer(ctx, &runtimeapi.StopContainerRequest{ContainerId: id, Timeout: kubeletGracePeriod})
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("StopContainer: %w", err)
	}
	if _, err := d.rt.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: p.sandboxID}); err != nil {
		return fmt.Errorf("StopPodSandbox: %w", err)
	}
	for _, id := range p.containerIDs {
		if _, err := d.rt.RemoveContainer(ctx, &runtimeapi.RemoveContainerRequest{ContainerId: id}); err != nil {
			return fmt.Errorf("RemoveContainer: %w", err)
		}
	}
	if _, err := d.rt.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: p.sandboxID}); err != nil {
		return fmt.Errorf("RemovePodSandbox: %w", err)
	}
	return os.RemoveAll(p.dir)
}
