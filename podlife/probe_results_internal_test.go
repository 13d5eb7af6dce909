package podlife

import (
	"context"
	"testing"
)

// Publishing never blocks on a subscriber that does not read: past its buffer, results are
// lost; the channel is closed when the subscriber's context ends, and nothing is sent after.
func TestProbeFanOutNeverBlocks(t *testing.T) {
	var f probeFanOut
	f.publish(ProbeResult{Pod: "none"}) // no subscriber
	ctx, cancel := context.WithCancel(context.Background())
	ch := f.subscribe(ctx)
	for i := 0; i < probeBuffer+10; i++ {
		f.publish(ProbeResult{Pod: "p", Container: string(rune('a' + i%26))})
	}
	cancel()
	n := 0
	for r := range ch {
		if r.Pod != "p" {
			t.Fatalf("result %+v", r)
		}
		n++
	}
	if n != probeBuffer {
		t.Errorf("%d results received, want the %d buffered", n, probeBuffer)
	}
	f.publish(ProbeResult{Pod: "after"}) // the closed channel is no longer subscribed
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.subs) != 0 {
		t.Errorf("%d subscribers left", len(f.subs))
	}
}
