package nodestatus

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlife/podlife/examples/node/internal/stats"
)

// Label marks the nodes podlife runs, so that pods can select them (nodeSelector
// podlife.io/node: "true") and tolerate their taint.
const Label = "podlife.io/node"

// Options describe the Node object the program registers.
type Options struct {
	Name     string
	IP       string
	Port     int32 // the kubelet API's
	Labels   map[string]string
	Taints   []corev1.Taint
	MaxPods  int64
	StateDir string // its filesystem is the node's ephemeral storage
	Version  string // podlife's version, shown as the kubelet version
}

// Configure fills in the node virtual-kubelet registers: labels, taints, capacity and
// allocatable from the host, addresses and the kubelet API port, system info and conditions
// (Ready, and the pressure conditions from the host).
func (o Options) Configure(n *corev1.Node) {
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	n.Labels["kubernetes.io/os"] = "linux"
	n.Labels["kubernetes.io/arch"] = runtime.GOARCH
	n.Labels["kubernetes.io/hostname"] = o.Name
	n.Labels[Label] = "true"
	for k, v := range o.Labels {
		n.Labels[k] = v
	}
	delete(n.Labels, "kubernetes.io/role") // virtual-kubelet's default; not a well-known label
	n.Spec.Taints = o.Taints
	capacity := hostCapacity(o.StateDir, o.MaxPods)
	n.Status.Capacity = capacity
	n.Status.Allocatable = capacity.DeepCopy()
	n.Status.Addresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: o.IP},
		{Type: corev1.NodeHostName, Address: o.Name},
	}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = o.Port
	n.Status.NodeInfo = corev1.NodeSystemInfo{
		OperatingSystem:         "linux",
		Architecture:            runtime.GOARCH,
		KernelVersion:           kernelVersion(),
		OSImage:                 osImage(),
		ContainerRuntimeVersion: "podlife://" + o.Version,
		KubeletVersion:          o.Version,
		KubeProxyVersion:        "",
	}
	n.Status.Phase = corev1.NodeRunning
	n.Status.Conditions = hostConditions(o.StateDir, nil)
	// The node's declared features (NodeDeclaredFeatures, k8s.io/component-helpers'
	// nodedeclaredfeatures): the scheduler places a pod that needs one only on a node that
	// declares it. podlife implements RestartAllContainers restart rules.
	n.Status.DeclaredFeatures = []string{"RestartAllContainersOnContainerExits"}
}

// hostCapacity is the node's capacity: the host's CPUs, memory and the state dir's filesystem,
// and maxPods pods. Nothing is reserved: allocatable is the same.
func hostCapacity(stateDir string, maxPods int64) corev1.ResourceList {
	rl := corev1.ResourceList{
		corev1.ResourceCPU:  *resource.NewQuantity(int64(runtime.NumCPU()), resource.DecimalSI),
		corev1.ResourcePods: *resource.NewQuantity(maxPods, resource.DecimalSI),
	}
	if m := stats.Meminfo(); m["MemTotal"] > 0 {
		rl[corev1.ResourceMemory] = *resource.NewQuantity(m["MemTotal"], resource.BinarySI)
	}
	if total, _, ok := stats.DiskSpace(stateDir); ok {
		rl[corev1.ResourceEphemeralStorage] = *resource.NewQuantity(total, resource.BinarySI)
	}
	return rl
}

// Pressure thresholds, the kubelet's default hard eviction thresholds.
const (
	memoryPressureBytes = 100 << 20 // memory.available < 100Mi
	diskPressureRatio   = 0.10      // nodefs.available < 10%
)

// hostConditions returns the node's conditions now: Ready, and MemoryPressure, DiskPressure and
// PIDPressure measured on the host. prev keeps the transition times of unchanged conditions.
func hostConditions(stateDir string, prev []corev1.NodeCondition) []corev1.NodeCondition {
	now := metav1.Now()
	mem := stats.Meminfo()
	memPressure := mem["MemAvailable"] > 0 && mem["MemAvailable"] < memoryPressureBytes
	total, free, ok := stats.DiskSpace(stateDir)
	diskPressure := ok && float64(free) < diskPressureRatio*float64(total)
	pidPressure := pidsPressure()
	cond := func(t corev1.NodeConditionType, bad bool, reason, okMsg, badMsg string) corev1.NodeCondition {
		c := corev1.NodeCondition{Type: t, Status: corev1.ConditionFalse, Reason: "KubeletHas" + reason, Message: okMsg,
			LastHeartbeatTime: now, LastTransitionTime: now}
		if t == corev1.NodeReady {
			c.Status, c.Reason = corev1.ConditionTrue, "KubeletReady"
		} else if bad {
			c.Status, c.Message = corev1.ConditionTrue, badMsg
			c.Reason = strings.Replace(c.Reason, "KubeletHasNo", "KubeletHas", 1)
			c.Reason = strings.Replace(c.Reason, "KubeletHasSufficient", "KubeletHasInsufficient", 1)
		}
		for _, p := range prev {
			if p.Type == t && p.Status == c.Status {
				c.LastTransitionTime = p.LastTransitionTime
			}
		}
		return c
	}
	return []corev1.NodeCondition{
		cond(corev1.NodeReady, false, "", "podlife is ready", ""),
		cond(corev1.NodeMemoryPressure, memPressure, "SufficientMemory", "kubelet has sufficient memory available", "kubelet has insufficient memory available"),
		cond(corev1.NodeDiskPressure, diskPressure, "NoDiskPressure", "kubelet has no disk pressure", "kubelet has disk pressure"),
		cond(corev1.NodePIDPressure, pidPressure, "SufficientPID", "kubelet has sufficient PID available", "kubelet has insufficient PID available"),
	}
}

// Provider reports the node's conditions to virtual-kubelet's node controller: Ping
// answers the heartbeat, and the host's pressure conditions are measured every period.
type Provider struct {
	Node     *corev1.Node
	StateDir string
	Period   time.Duration

	mu   sync.Mutex
	last []corev1.NodeCondition
}

// Ping reports the node alive.
func (np *Provider) Ping(context.Context) error { return nil }

// NotifyNodeStatus measures the host's conditions every period and reports a change.
func (np *Provider) NotifyNodeStatus(ctx context.Context, cb func(*corev1.Node)) {
	np.mu.Lock()
	np.last = np.Node.Status.Conditions
	np.mu.Unlock()
	go func() {
		t := time.NewTicker(np.Period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			np.mu.Lock()
			conds := hostConditions(np.StateDir, np.last)
			changed := !sameConditions(conds, np.last)
			np.last = conds
			n := np.Node.DeepCopy()
			np.mu.Unlock()
			if changed {
				n.Status.Conditions = conds
				cb(n)
			}
		}
	}()
}

// sameConditions compares conditions ignoring heartbeat times.
func sameConditions(a, b []corev1.NodeCondition) bool {
	strip := func(l []corev1.NodeCondition) []corev1.NodeCondition {
		out := make([]corev1.NodeCondition, len(l))
		for i, c := range l {
			c.LastHeartbeatTime = metav1.Time{}
			out[i] = c
		}
		return out
	}
	return equality.Semantic.DeepEqual(strip(a), strip(b))
}

// pidsPressure reports whether fewer than 10% of the host's PIDs are left.
func pidsPressure() bool {
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if err != nil {
		return false
	}
	max, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || max == 0 {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err == nil {
			n++
		}
	}
	return float64(max-n) < 0.1*float64(max)
}

// kernelVersion is the host kernel's release.
func kernelVersion() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}

// osImage is /etc/os-release's PRETTY_NAME.
func osImage() string {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return "Linux"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return "Linux"
}

// ParseTaint parses "key[=value]:Effect", as kubectl taint does.
func ParseTaint(s string) (corev1.Taint, error) {
	kv, effect, ok := strings.Cut(s, ":")
	if !ok {
		return corev1.Taint{}, fmt.Errorf("taint %q: want key[=value]:Effect", s)
	}
	k, v, _ := strings.Cut(kv, "=")
	switch e := corev1.TaintEffect(effect); e {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		return corev1.Taint{Key: k, Value: v, Effect: e}, nil
	}
	return corev1.Taint{}, fmt.Errorf("taint %q: effect must be NoSchedule, PreferNoSchedule or NoExecute", s)
}
