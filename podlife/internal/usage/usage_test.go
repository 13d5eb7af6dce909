package usage

import (
	"testing"
	"time"
)

// A pod's /proc/<pid>/net/dev (as Linux 6.1 prints it): loopback is listed, not summed.
func TestParseNetDev(t *testing.T) {
	data := []byte(`Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:     140       2    0    0    0     0          0         0      140       2    0    0    0     0       0          0
  eth0:   12345      67    1    2    0     0          0         0     8910      11    3    4    0     0       0          0
`)
	n, err := parseNetDev(data)
	if err != nil {
		t.Fatal(err)
	}
	if n.RxBytes != 12345 || n.RxPackets != 67 || n.RxErrors != 1 || n.RxDropped != 2 ||
		n.TxBytes != 8910 || n.TxPackets != 11 || n.TxErrors != 3 || n.TxDropped != 4 {
		t.Errorf("totals: %+v", n)
	}
	if len(n.Interfaces) != 2 || n.Interfaces[0].Name != "eth0" || n.Interfaces[1].Name != "lo" || n.Interfaces[1].RxBytes != 140 {
		t.Errorf("interfaces: %+v", n.Interfaces)
	}
	if _, err := parseNetDev([]byte("h\nh\n  eth0: 1 2 3\n")); err == nil {
		t.Error("a short line parsed")
	}
}

// A rate needs two samples of one attempt in time order; a restart's reset gives none.
func TestCPURate(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	a := ContainerUsage{Name: "c", Timestamp: t0, CPU: time.Second}
	b := ContainerUsage{Name: "c", Timestamp: t0.Add(2 * time.Second), CPU: 2 * time.Second}
	if r, ok := CPURate(a, b); !ok || r != 0.5 {
		t.Errorf("rate %v %v, want 0.5", r, ok)
	}
	restarted := b
	restarted.Attempt, restarted.CPU = 1, 10*time.Millisecond
	if _, ok := CPURate(a, restarted); ok {
		t.Error("a rate across a restart")
	}
	if _, ok := CPURate(b, a); ok {
		t.Error("a rate backwards in time")
	}
}
