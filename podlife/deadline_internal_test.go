package podlife

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// An adopter's spec is compared with the deadline the pod started with when its own is an
// update the API server allows (set from unset, or shortened); the shorter of it and the
// deadline set on the running pod applies. Any other deadline is left as given (CheckSpec
// then refuses it).
func TestDeadlineUpdate(t *testing.T) {
	d := func(v time.Duration) *time.Duration { return &v }
	for _, tc := range []struct {
		name                       string
		started, set, given        *time.Duration
		wantCompared, wantDeadline *time.Duration
	}{
		{"as started, none set", d(time.Hour), nil, d(time.Hour), d(time.Hour), nil},
		{"as started, one set", d(time.Hour), d(time.Minute), d(time.Hour), d(time.Hour), d(time.Minute)},
		{"as updated", d(time.Hour), d(time.Minute), d(time.Minute), d(time.Hour), d(time.Minute)},
		{"shortened while unmanaged", d(time.Hour), d(time.Minute), d(time.Second), d(time.Hour), d(time.Second)},
		{"set from unset", nil, nil, d(time.Minute), nil, d(time.Minute)},
		{"longer than started", d(time.Hour), nil, d(2 * time.Hour), d(2 * time.Hour), nil},
		{"removed", d(time.Hour), d(time.Minute), nil, nil, d(time.Minute)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := json.Marshal(PodSpec{Name: "p", ActiveDeadline: tc.started})
			if err != nil {
				t.Fatal(err)
			}
			rec := podRecord{Spec: spec, ActiveDeadline: tc.set}
			given := PodSpec{Name: "p", ActiveDeadline: tc.given}
			s, r, got := record.DeadlineUpdate(given, given, rec)
			if !eqDuration(s.ActiveDeadline, tc.wantCompared) || !eqDuration(r.ActiveDeadline, tc.wantCompared) {
				t.Errorf("compared with %v/%v, want %v", s.ActiveDeadline, r.ActiveDeadline, tc.wantCompared)
			}
			if !eqDuration(got, tc.wantDeadline) {
				t.Errorf("deadline set %v, want %v", got, tc.wantDeadline)
			}
		})
	}
	for _, tc := range []struct {
		cur *time.Duration
		d   time.Duration
		ok  bool
	}{{nil, time.Second, true}, {nil, 0, false}, {nil, -time.Second, false}, {d(time.Minute), time.Minute, true}, {d(time.Minute), time.Second, true}, {d(time.Minute), time.Hour, false}} {
		if err := checkDeadlineUpdate("p", tc.cur, tc.d); (err == nil) != tc.ok {
			t.Errorf("checkDeadlineUpdate(%v, %v) = %v, want ok %v", tc.cur, tc.d, err, tc.ok)
		}
	}
}

func eqDuration(a, b *time.Duration) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
