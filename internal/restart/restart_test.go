package restart

import (
	"testing"
	"time"

	"github.com/podlife/podlife/internal/clock"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const s = time.Second

func TestConfigWithDefaults(t *testing.T) {
	tests := []struct {
		in, want Config
	}{
		{Config{}, Config{Initial: 10 * s, Max: 300 * s, ResetAfter: 600 * s}},
		{Config{Initial: -1, Max: -1, ResetAfter: -1}, Config{Initial: 10 * s, Max: 300 * s, ResetAfter: 600 * s}},
		{Config{Initial: 200 * time.Millisecond, Max: s, ResetAfter: 5 * s}, Config{Initial: 200 * time.Millisecond, Max: s, ResetAfter: 5 * s}},
		{Config{Max: 5 * s}, Config{Initial: 5 * s, Max: 5 * s, ResetAfter: 600 * s}},
		{Config{Initial: 20 * s, Max: 15 * s}, Config{Initial: 15 * s, Max: 15 * s, ResetAfter: 600 * s}},
		{Config{Initial: s}, Config{Initial: s, Max: 300 * s, ResetAfter: 600 * s}},
	}
	for _, tt := range tests {
		if got := tt.in.WithDefaults(); got != tt.want {
			t.Errorf("%+v.WithDefaults() = %+v, want %+v", tt.in, got, tt.want)
		}
	}
	if got := New(Config{Max: 5 * s}, nil).Config(); got.Initial != 5*s {
		t.Errorf("New did not apply defaults: %+v", got)
	}
}

// crashLoop simulates a container that runs for run each time it is started
// and is restarted as the kubelet does: when Next returns a wait, the clock is
// advanced by it and Next is called again, which must then return 0. It
// returns the waits between each exit and the following restart.
func crashLoop(t *testing.T, cfg Config, run time.Duration, restarts int) []time.Duration {
	t.Helper()
	clk := clock.NewFake(epoch)
	tr := New(cfg, clk)
	var waits []time.Duration
	for range restarts {
		clk.Advance(run)
		finished := clk.Now()
		wait := tr.Next("c", finished)
		if wait > 0 {
			if in, rem := tr.InBackOff("c", finished); !in || rem != wait {
				t.Fatalf("InBackOff = %v, %v; Next said %v", in, rem, wait)
			}
			// Still in back-off just before the end: nothing changes.
			clk.Advance(wait - time.Nanosecond)
			if again := tr.Next("c", finished); again != time.Nanosecond {
				t.Fatalf("Next 1ns before the end of back-off = %v", again)
			}
			clk.Advance(time.Nanosecond)
			if in, _ := tr.InBackOff("c", finished); in {
				t.Fatal("still in back-off after the wait")
			}
			if again := tr.Next("c", finished); again != 0 {
				t.Fatalf("Next after waiting %v = %v, want 0", wait, again)
			}
		}
		waits = append(waits, wait)
	}
	return waits
}

func TestCrashLoopSequence(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		cfg  Config
		run  time.Duration
		want []time.Duration
	}{
		{"kubelet defaults, immediate crashes", Config{}, 0,
			[]time.Duration{0, 10 * s, 20 * s, 40 * s, 80 * s, 160 * s, 300 * s, 300 * s, 300 * s}},
		{"kubelet defaults, 1s runs", Config{}, s,
			// The wait is measured from finishedAt, but the delay doubles
			// whatever the run time.
			[]time.Duration{0, 10 * s, 20 * s, 40 * s, 80 * s, 160 * s, 300 * s, 300 * s}},
		{"KEP-4603 curve", Config{Initial: s, Max: 60 * s}, 0,
			[]time.Duration{0, s, 2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 60 * s, 60 * s}},
		{"SDK test curve", Config{Initial: 200 * ms, Max: s}, 0,
			[]time.Duration{0, 200 * ms, 400 * ms, 800 * ms, s, s, s}},
		{"max below initial", Config{Initial: 20 * s, Max: 15 * s}, 0,
			[]time.Duration{0, 15 * s, 15 * s, 15 * s}},
		{"runs longer than reset", Config{Initial: 200 * ms, Max: s, ResetAfter: 2 * s}, 3 * s,
			[]time.Duration{0, 0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := crashLoop(t, tt.cfg, tt.run, len(tt.want))
			if len(got) != len(tt.want) {
				t.Fatalf("waits = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("waits = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestWaitMeasuredFromFinishedAt(t *testing.T) {
	clk := clock.NewFake(epoch)
	tr := New(Config{}, clk)
	tr.Next("c", clk.Now()) // first crash: immediate restart
	clk.Advance(s)
	finished := clk.Now() // second crash
	clk.Advance(4 * s)    // noticed 4s later
	if got := tr.Next("c", finished); got != 6*s {
		t.Errorf("Next = %v, want 6s (10s from finishedAt)", got)
	}
	if got := tr.Delay("c"); got != 10*s {
		t.Errorf("Delay = %v, want 10s", got)
	}
	if got, want := Message(tr.Delay("c"), "app", "web_default(uid)"), "back-off 10s restarting failed container=app pod=web_default(uid)"; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
	// Noticed after the whole delay: restart at once.
	clk.Advance(6 * s)
	if got := tr.Next("c", finished); got != 0 {
		t.Errorf("Next after the delay = %v, want 0", got)
	}
	if got := tr.Delay("c"); got != 20*s {
		t.Errorf("Delay = %v, want 20s", got)
	}
}

func TestResetAfterLongRun(t *testing.T) {
	clk := clock.NewFake(epoch)
	tr := New(Config{}, clk)
	// Crash loop up to a 40s delay.
	for range 3 {
		crashLoopStep(t, tr, clk)
	}
	if got := tr.Delay("c"); got != 40*s {
		t.Fatalf("Delay = %v, want 40s", got)
	}
	// A run of exactly ResetAfter (from the last restart to finishedAt) does
	// not reset: the crash is backed off by the current 40s, then the delay
	// doubles.
	clk.Advance(600 * s)
	if got := tr.Next("c", clk.Now()); got != 40*s {
		t.Fatalf("Next after a 600s run = %v, want 40s", got)
	}
	clk.Advance(40 * s)
	if got := tr.Next("c", clk.Now().Add(-40*s)); got != 0 {
		t.Fatalf("Next after the back-off = %v, want 0", got)
	}
	if got := tr.Delay("c"); got != 80*s {
		t.Errorf("Delay = %v, want 80s", got)
	}
	// A longer run resets: immediate restart, then 10s.
	clk.Advance(600*s + time.Nanosecond)
	if got := tr.Next("c", clk.Now()); got != 0 {
		t.Fatalf("Next after a long run = %v, want 0", got)
	}
	if got := tr.Delay("c"); got != 10*s {
		t.Errorf("Delay after reset = %v, want 10s", got)
	}
	if got := tr.Next("c", clk.Now()); got != 10*s {
		t.Errorf("Next after reset = %v, want 10s", got)
	}
	// Expiry compares finishedAt, not now, with the last update: a crash
	// after a short run that is noticed late is still backed off.
	clk.Advance(10 * s)
	tr.Next("c", clk.Now().Add(-10*s)) // restarted: delay 20s
	clk.Advance(s)
	finished := clk.Now()
	clk.Advance(700 * s)
	if in, _ := tr.InBackOff("c", finished); in {
		t.Error("in back-off 700s after finishedAt")
	}
	tr.Next("c", finished)
	if got := tr.Delay("c"); got != 40*s {
		t.Errorf("Delay after a late restart = %v, want 40s (no reset)", got)
	}
}

// crashLoopStep crashes "c" at once and restarts it after its back-off.
func crashLoopStep(t *testing.T, tr *Tracker, clk *clock.Fake) {
	t.Helper()
	finished := clk.Now()
	if wait := tr.Next("c", finished); wait > 0 {
		clk.Advance(wait)
		if again := tr.Next("c", finished); again != 0 {
			t.Fatalf("Next after waiting = %v", again)
		}
	}
}

func TestKeysResetGC(t *testing.T) {
	clk := clock.NewFake(epoch)
	tr := New(Config{}, clk)
	now := clk.Now()
	tr.Next("a", now)
	tr.Next("b", now)
	if got := tr.Next("a", now); got != 10*s {
		t.Errorf("a: Next = %v, want 10s", got)
	}
	if got := tr.Next("c", now); got != 0 {
		t.Errorf("c: Next = %v, want 0 (keys are independent)", got)
	}
	if in, _ := tr.InBackOff("unknown", now); in {
		t.Error("unknown key in back-off")
	}
	if got := tr.Delay("unknown"); got != 0 {
		t.Errorf("Delay(unknown) = %v", got)
	}
	tr.Reset("a")
	if got := tr.Next("a", now); got != 0 {
		t.Errorf("a after Reset: Next = %v, want 0", got)
	}
	if n := tr.Len(); n != 3 {
		t.Errorf("Len = %d, want 3", n)
	}
	clk.Advance(300 * s)
	tr.Next("b", now) // b's back-off (10s) is over: advanced now
	clk.Advance(300*s + time.Nanosecond)
	tr.GC() // a and c were last updated 600s+1ns ago, b 300s+1ns ago
	if n := tr.Len(); n != 1 {
		t.Errorf("Len after GC = %d, want 1", n)
	}
	if got := tr.Delay("b"); got != 20*s {
		t.Errorf("b: Delay = %v, want 20s", got)
	}
}

func TestEventMessage(t *testing.T) {
	if got, want := EventMessage("app", "web_default(uid)"), "Back-off restarting failed container app in pod web_default(uid)"; got != want {
		t.Errorf("EventMessage = %q, want %q", got, want)
	}
	if got, want := Message(300*s, "app", "p"), "back-off 5m0s restarting failed container=app pod=p"; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
}
