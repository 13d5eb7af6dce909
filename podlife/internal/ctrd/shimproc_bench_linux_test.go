package ctrd

import "testing"

// BenchmarkFindShims measures one scan of the host's processes for shims (none match): a pod's
// removal makes one.
func BenchmarkFindShims(b *testing.B) {
	for b.Loop() {
		for _, s := range FindShims("no-such-namespace", []string{"none"}) {
			_ = s.Close()
		}
	}
}
