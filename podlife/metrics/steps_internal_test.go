package metrics

import (
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

// A container's steps are measured from the event each starts from: a restart's Created that
// follows a Started (no Pulled between) is not a create step, and post_start follows Started.
func TestStartStepsFromTheirOwnEvents(t *testing.T) {
	c := &Collector{life: newLifecycle()}
	t0 := time.Now()
	ev := func(r podlife.Reason, s float64) {
		c.stepEvent(podlife.Event{Time: t0.Add(time.Duration(s * float64(time.Second))), Pod: "p", Container: "c", Reason: r})
	}
	ev(reasons.Pulled, 0)
	ev(reasons.Created, 1)
	ev(reasons.Started, 3)
	ev(reasons.PostStartCompleted, 6)
	ev(reasons.Created, 60) // a restart's create, after the container ran: not measured
	ev(reasons.Pulled, 70)
	ev(reasons.Created, 71)
	for step, want := range map[string]struct {
		n   uint64
		sum float64
	}{"create": {2, 2}, "start": {1, 2}, "post_start": {1, 3}} {
		var m dto.Metric
		if err := c.life.step.WithLabelValues(step).(interface{ Write(*dto.Metric) error }).Write(&m); err != nil {
			t.Fatal(err)
		}
		if h := m.GetHistogram(); h.GetSampleCount() != want.n || h.GetSampleSum() != want.sum {
			t.Errorf("step %s: %d samples, sum %v s; want %d, %v s", step, h.GetSampleCount(), h.GetSampleSum(), want.n, want.sum)
		}
	}
}
