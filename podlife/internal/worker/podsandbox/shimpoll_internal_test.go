package podsandbox

import (
	"testing"
	"time"
)

func TestShimPollBacksOff(t *testing.T) {
	for _, c := range []struct{ elapsed, want time.Duration }{
		{0, 2 * time.Millisecond},
		{15 * time.Millisecond, 2 * time.Millisecond},
		{100 * time.Millisecond, 10 * time.Millisecond},
		{time.Second, 20 * time.Millisecond},
		{time.Minute, 20 * time.Millisecond},
	} {
		if got := shimPoll(c.elapsed); got != c.want {
			t.Errorf("after %v the next poll waits %v, want %v", c.elapsed, got, c.want)
		}
	}
}
