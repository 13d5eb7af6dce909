package podlife

import "time"

// withPullDefaults is the image pull back-off with the kubelet's values in its zero (or
// negative) fields: Initial 10 s, Max 300 s (Config.withDefaults applies it).
func (b Backoff) withPullDefaults() Backoff {
	if b.Initial <= 0 {
		b.Initial = defaultPullBackoffInitial
	}
	if b.Max <= 0 {
		b.Max = defaultPullBackoffMax
	}
	return b
}

// The kubelet's image pull back-off (pkg/kubelet/images: 10 s, doubling, up to 300 s).
const (
	defaultPullBackoffInitial = 10 * time.Second
	defaultPullBackoffMax     = 300 * time.Second
)
