package eviction

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DefaultNodefsAvailable is the kubelet's default hard eviction threshold on the node's
// filesystem (evictionHard nodefs.available).
const DefaultNodefsAvailable = "10%"

// NodeConditionMessage is the kubelet's message (and Warning Evicted event) for a pod refused
// at admission while the node has DiskPressure.
const NodeConditionMessage = "The node had condition: [DiskPressure]. "

// ErrDiskPressure is what a *PressureError matches with errors.Is.
var ErrDiskPressure = errors.New("disk pressure")

// Threshold is a minimum of available space on a filesystem, as a share of its capacity or in
// bytes (the kubelet's nodefs.available signal). The zero Threshold never trips.
type Threshold struct {
	// Percent of the capacity, 0 to 100; used when Bytes is 0.
	Percent float64
	// Bytes, if not 0, is the minimum itself.
	Bytes uint64
}

// ParseThreshold reads a threshold as the kubelet's evictionHard value: "10%", "1.5%", or a
// quantity ("500Mi", "1G", "1048576"). "" is DefaultNodefsAvailable; "0" or "0%" disables the
// check.
func ParseThreshold(s string) (Threshold, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = DefaultNodefsAvailable
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || f < 0 || f > 100 || math.IsNaN(f) {
			return Threshold{}, fmt.Errorf("threshold %q: a percentage must be between 0%% and 100%%", s)
		}
		return Threshold{Percent: f}, nil
	}
	n, err := parseQuantity(s)
	if err != nil {
		return Threshold{}, fmt.Errorf("threshold: %w", err)
	}
	return Threshold{Bytes: n}, nil
}

// String is the threshold in the kubelet's notation: "nodefs.available<10%".
func (t Threshold) String() string {
	if t.Bytes > 0 {
		return "nodefs.available<" + FormatQuantity(int64(min(t.Bytes, math.MaxInt64)))
	}
	return "nodefs.available<" + strconv.FormatFloat(t.Percent, 'f', -1, 64) + "%"
}

// Min is the threshold in bytes on a filesystem of that capacity.
func (t Threshold) Min(capacity uint64) uint64 {
	if t.Bytes > 0 {
		return t.Bytes
	}
	return uint64(math.Ceil(float64(capacity) * t.Percent / 100))
}

// Check returns a *PressureError if available bytes of a capacity are below the threshold
// (dir names the filesystem in the error), nil otherwise.
func (t Threshold) Check(dir string, available, capacity uint64) error {
	if m := t.Min(capacity); available < m {
		return &PressureError{Dir: dir, Threshold: t, Available: available, Capacity: capacity, Min: m}
	}
	return nil
}

// PressureError says that a filesystem has less space available than a threshold: a new pod
// is refused rather than half written (the kubelet's DiskPressure admission rejection).
type PressureError struct {
	// Dir is a directory on the filesystem (the state directory).
	Dir string
	// Threshold is the threshold crossed, and Min its value in bytes.
	Threshold Threshold
	Min       uint64
	// Available and Capacity are the filesystem's, in bytes, as measured.
	Available, Capacity uint64
}

// Error says which threshold was crossed and how much is available.
func (e *PressureError) Error() string {
	return fmt.Sprintf("%s(%s has %s available of %s, below the hard eviction threshold %s = %s)",
		NodeConditionMessage, e.Dir, FormatQuantity(clampInt(e.Available)), FormatQuantity(clampInt(e.Capacity)),
		e.Threshold, FormatQuantity(clampInt(e.Min)))
}

// Is makes errors.Is(err, ErrDiskPressure) true.
func (e *PressureError) Is(target error) bool { return target == ErrDiskPressure }

func clampInt(n uint64) int64 { return int64(min(n, math.MaxInt64)) }
