package imagepull

import (
	"testing"
	"time"
)

// The image pull back-off doubles from Initial up to Max (here the kubelet's 10 s and 300 s,
// Config.withDefaults' for zero fields: see podlife's TestPullBackoffDefaults).
func TestNextDelay(t *testing.T) {
	var got []time.Duration
	d := time.Duration(0)
	for range 7 {
		d = NextDelay(d, Backoff{Initial: 10 * time.Second, Max: 300 * time.Second})
		got = append(got, d)
	}
	want := []time.Duration{10, 20, 40, 80, 160, 300, 300}
	for i := range want {
		if got[i] != want[i]*time.Second {
			t.Fatalf("delays %v, want %v seconds", got, want)
		}
	}
	if d := NextDelay(0, Backoff{Initial: time.Second, Max: 500 * time.Millisecond}); d != 500*time.Millisecond {
		t.Errorf("first delay %v, want Max when Initial is above it", d)
	}
}
