package worker

import (
	"fmt"
	"strings"
	"testing"
)

// The test binary checks that no closure running on a pod's loop calls do or update.
func init() { checkLoopReentry = true }

// A closure that hands the loop another closure would wait for itself: the package's tests panic.
func TestLoopReentryPanics(t *testing.T) {
	o := newOwner()
	o.gid.Store(goroutineID()) // as if this goroutine were the loop
	p := &Worker{owner: o}
	defer func() {
		if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), "would wait for itself") {
			t.Errorf("recovered %v, want the re-entry panic", v)
		}
	}()
	p.do(func() {})
}
