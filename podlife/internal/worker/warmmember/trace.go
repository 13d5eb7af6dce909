package warmmember

import (
	"slices"
	"sync"
	"time"
)

// trace times the start of a taken member step by step, for the debug log line that Start
// writes once the start sequence is over ("warm start timings": what the bench's -v shows of
// a warm start; docs/benchmarks.md's breakdown). Each step is the time from the end of the
// step before (in time order) to its own end.
type trace struct {
	mu    sync.Mutex
	t0    time.Time
	marks []traceMark
}

type traceMark struct {
	step string
	at   time.Time
}

func (t *trace) begin(at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.t0, t.marks = at, nil
}

// markAt records that step ended at at.
func (t *trace) markAt(step string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.marks = append(t.marks, traceMark{step, at})
}

func (t *trace) mark(step string) { t.markAt(step, time.Now()) }

// traceDone returns the member's trace's steps as log attributes, with the containers' starts
// (when each Task.Start returned) among them, and the total.
func (m *Member) traceDone(w Pod) []any {
	t := &m.trace
	cs, _, _ := w.Containers()
	for _, c := range cs {
		for _, at := range c.Started {
			if !at.IsZero() {
				t.markAt("start "+c.Name, at)
			}
		}
	}
	t.mark("sequence done")
	t.mu.Lock()
	defer t.mu.Unlock()
	marks := slices.Clone(t.marks)
	slices.SortStableFunc(marks, func(a, b traceMark) int { return a.at.Compare(b.at) })
	var out []any
	last := t.t0
	for _, m := range marks {
		out = append(out, m.step, m.at.Sub(last).Round(time.Microsecond))
		last = m.at
	}
	return append(out, "total", last.Sub(t.t0).Round(time.Microsecond))
}
