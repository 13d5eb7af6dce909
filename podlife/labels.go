package podlife

import (
	"crypto/sha256"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"
)

// Labels podlife puts on every containerd object it creates, enough to find a pod's objects again.
const (
	LabelPod       = "podlife.io/pod"
	LabelPodUID    = "podlife.io/pod-uid"
	LabelNamespace = "podlife.io/namespace"
	LabelContainer = "podlife.io/container"
	LabelKind      = "podlife.io/kind" // "init" or "app"
	LabelAttempt   = "podlife.io/attempt"
	// annotationShimGroup (an OCI spec annotation) makes containerd's runc shim serve all
	// containers with the same value in one process.
	annotationShimGroup = "io.containerd.runc.v2.group"
)

func (p *Pod) labels(c *Container) map[string]string {
	l := make(map[string]string, len(p.spec.Labels)+7)
	for k, v := range p.spec.Labels {
		l[k] = v
	}
	l[LabelPod] = p.name
	l[LabelPodUID] = p.uid
	l[LabelNamespace] = p.spec.Namespace
	l[LabelContainer] = c.spec.Name
	l[LabelAttempt] = strconv.Itoa(0)
	l[LabelKind] = "app"
	if c.init {
		l[LabelKind] = "init"
	}
	return l
}

// shimGroup is the runc shim group of the pod's containers ("" for one shim per container).
func (p *Pod) shimGroup() string {
	if p.rt.cfg.Shims == ShimPerPod {
		return "podlife-" + p.uid
	}
	return ""
}

// withShim runs fn, a NewTask of one of the pod's containers. With one shim per pod, the first
// NewTask starts the shim, and concurrent first starts race in containerd's runc shim manager for
// the group's socket: the loser's shim is left running with nothing to serve (a leaked process).
// So the first NewTask holds the others back until the shim answers on its socket (the state in
// which containerd reuses a group's shim, as the CRI plugin does for every container after the
// sandbox), or, if that is never seen, until the NewTask returns.
func (p *Pod) withShim(fn func() error) error {
	if p.shimGroup() == "" {
		return fn()
	}
	p.shimMu.Lock()
	if p.shimUp {
		p.shimMu.Unlock()
		return fn()
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	sock := p.shimSocket()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			p.shimUp = p.shimUp || err == nil
			p.shimMu.Unlock()
			return err
		case <-tick.C:
			if !p.shimUp && canConnect(sock) {
				p.shimUp = true
				p.shimMu.Unlock()
				return <-done
			}
		}
	}
}

// shimSocket is where containerd's runc shim manager puts the socket of the pod's shim group:
// /run/containerd/s/<sha256 of "<containerd address>/<namespace>/<group>"> (containerd 1.6 to 2.x).
func (p *Pod) shimSocket() string {
	d := sha256.Sum256([]byte(filepath.Join(p.rt.address, p.rt.cfg.Namespace, p.shimGroup())))
	return fmt.Sprintf("/run/containerd/s/%x", d)
}

func canConnect(sock string) bool {
	c, err := net.DialTimeout("unix", sock, 50*time.Millisecond)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}
