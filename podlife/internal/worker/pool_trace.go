package worker

import (
	"slices"
	"sync"
	"time"
)

// warmTrace times the start of a taken member step by step, for the debug log line that
// startPrewarmed writes once the start sequence is over ("warm start timings": what the bench's
// -v shows of a warm start; docs/benchmarks.md's breakdown). Each step is the time from the end
// of the step before (in time order) to its own end.
type warmTrace struct {
	mu    sync.Mutex
	t0    time.Time
	marks []traceMark
}

type traceMark struct {
	step string
	at   time.Time
}

func (t *warmTrace) begin(at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.t0, t.marks = at, nil
}

// markAt records that step ended at at.
func (t *warmTrace) markAt(step string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.marks = append(t.marks, traceMark{step, at})
}

func (t *warmTrace) mark(step string) { t.markAt(step, time.Now()) }

// traceDone returns t's steps as log attributes, with the containers' starts (when each
// Task.Start returned) among them, and the total.
func (p *Worker) traceDone(t *warmTrace) []any {
	p.do(func() {
		for _, c := range p.specContainers() {
			for _, inst := range c.live {
				if !inst.startedAt.IsZero() {
					t.markAt("start "+c.spec.Name, inst.startedAt)
				}
			}
		}
	})
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
