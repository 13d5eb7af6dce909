//go:build linux

package cni

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkSetupRemove measures one Setup and one Remove of a pod with a
// pre-made netns, reporting each separately (setup-ms, remove-ms). Run as
// root: go test -run XXX -bench SetupRemove ./cni/
func BenchmarkSetupRemove(b *testing.B) {
	for _, bc := range []struct {
		name   string
		ipMasq bool
		ports  bool
	}{
		{"plain", false, false},
		{"portmap", false, true},
		{"ipmasq", true, false},
		{"ipmasq+portmap", true, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			br := newTestBridge(b, bc.ipMasq)
			ctx := context.Background()
			var setup, remove time.Duration
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				netns := newNetNS(b)
				var opts []AttachOption
				if bc.ports {
					opts = append(opts, WithPortMappings(PortMapping{HostPort: 30000 + uint16(i%1000), ContainerPort: 80}))
				}
				id := fmt.Sprintf("bench-%d", i)
				b.StartTimer()

				start := time.Now()
				if _, err := br.Setup(ctx, id, netns, opts...); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				if err := br.Remove(ctx, id, netns); err != nil {
					b.Fatal(err)
				}
				setup += mid.Sub(start)
				remove += time.Since(mid)
			}
			b.ReportMetric(float64(setup.Microseconds())/1000/float64(b.N), "setup-ms")
			b.ReportMetric(float64(remove.Microseconds())/1000/float64(b.N), "remove-ms")
		})
	}
}
