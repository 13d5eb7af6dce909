package podlifetest

import (
	"runtime"
	"strings"
)

// Goroutines returns the stacks of this process's goroutines whose stack mentions substr (a
// package path such as "github.com/podlife/podlife/podlife."), for goroutine-leak checks: take
// them before a Runtime is made and again after it is closed.
func Goroutines(substr string) []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, substr) {
			out = append(out, g)
		}
	}
	return out
}
