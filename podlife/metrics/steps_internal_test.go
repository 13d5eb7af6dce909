package metrics

import (
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/podlife/podlife/podlife"
)

// A container's steps are measured from the event each starts from: a restart's Created that
// follows a Started (no Pulled between) is not a create step, and post_start follows Started.
func TestStartStepsFromTheirOwnEvents(t *testing.T) {
	c := &Collector{life: newLifecycle()}
	t0 := time.Now()
	ev := func(r podlife.Reason, s float64) {
		c.stepEvent(podlife.Event{Time: t0.Add(time.Duration(s * float64(time.Second))), Pod: "p", Container: "c", Reason: r})
	}
	ev(podlife.ReasonPulled, 0)
	ev(podlife.ReasonCreated, 1)
	ev(podlife.ReasonStarted, 3)
	ev(podlife.ReasonPostStartCompleted, 6)
	ev(podlife.ReasonCreated, 60) // a restart's create, after the container ran: not measured
	ev(podlife.ReasonPulled, 70)
	ev(podlife.ReasonCreated, 71)
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
