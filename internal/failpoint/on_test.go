//go:build failpoints

package failpoint

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want target
		bad  bool
	}{
		{in: "", want: target{nth: 1}},
		{in: "run.netns", want: target{name: "run.netns", nth: 1}},
		{in: "run.netns@3", want: target{name: "run.netns", nth: 3}},
		{in: "hook.poststart+200ms", want: target{name: "hook.poststart", nth: 1, delay: 200 * time.Millisecond}},
		{in: "a@2+1s", want: target{name: "a", nth: 2, delay: time.Second}},
		{in: "a@0", bad: true},
		{in: "a@x", bad: true},
		{in: "a+soon", bad: true},
	} {
		got, err := parse(tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("parse(%q): err %v, want error %v", tc.in, err, tc.bad)
			continue
		}
		if !tc.bad && got != tc.want {
			t.Errorf("parse(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestHitCountsOtherPoints(t *testing.T) {
	t.Setenv(Env, "never-hit")
	Hit("x")
	Hit("x")
	if n := Names()["x"]; n != 2 {
		t.Fatalf("hits of x = %d, want 2", n)
	}
}
