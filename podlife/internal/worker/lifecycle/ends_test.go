package lifecycle

import (
	"context"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
)

// The hooks of package hook end with their context; Go code may not.
func TestEndsWithContext(t *testing.T) {
	type foreign struct{ hook.Handler }
	for _, tc := range []struct {
		h    hook.Handler
		want bool
	}{
		{hook.Exec("true"), true},
		{hook.HTTPGet(80, "/"), true},
		{hook.Sleep(time.Second), true},
		{hook.HandlerFunc(func(context.Context, hook.Target) error { return nil }), false},
		{foreign{hook.Sleep(0)}, false},
		{&foreign{hook.Sleep(0)}, false},
	} {
		if got := EndsWithContext(tc.h); got != tc.want {
			t.Errorf("EndsWithContext(%T) = %v, want %v", tc.h, got, tc.want)
		}
	}
}
