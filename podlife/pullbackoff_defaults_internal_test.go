package podlife

import (
	"testing"
	"time"
)

// Zero fields of the image pull back-off take the kubelet's 10 s and 300 s (Config.withDefaults),
// and the worker gets them (see package worker's TestNextPullDelay).
func TestPullBackoffDefaults(t *testing.T) {
	r := newRuntime(Config{ImagePullBackOff: &Backoff{}}.withDefaults(), nil)
	got := r.newHost().Cfg.ImagePullBackOff
	if got == nil || got.Initial != 10*time.Second || got.Max != 300*time.Second {
		t.Errorf("pull back-off %+v, want 10s up to 300s", got)
	}
}
