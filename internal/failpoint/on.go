//go:build failpoints

package failpoint

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Enabled reports whether this is a failpoints build.
const Enabled = true

// target is the parsed PODLIFE_FAILPOINT.
type target struct {
	name  string
	nth   int
	delay time.Duration
}

var (
	once sync.Once
	want target
	mu   sync.Mutex
	hits = map[string]int{}
)

// parse reads "name[@N][+DURATION]".
func parse(s string) (target, error) {
	t := target{nth: 1}
	if i := strings.LastIndex(s, "+"); i >= 0 {
		d, err := time.ParseDuration(s[i+1:])
		if err != nil {
			return t, fmt.Errorf("%s=%q: delay: %w", Env, s, err)
		}
		t.delay, s = d, s[:i]
	}
	if i := strings.LastIndex(s, "@"); i >= 0 {
		n, err := strconv.Atoi(s[i+1:])
		if err != nil || n < 1 {
			return t, fmt.Errorf("%s=%q: count must be a number >= 1", Env, s)
		}
		t.nth, s = n, s[:i]
	}
	t.name = s
	return t, nil
}

// Hit kills the process if PODLIFE_FAILPOINT names this hit of the point (see the package doc).
func Hit(name string) {
	once.Do(func() {
		t, err := parse(os.Getenv(Env))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		want = t
	})
	mu.Lock()
	hits[name]++
	n := hits[name]
	mu.Unlock()
	if want.name == "" || name != want.name || n != want.nth {
		return
	}
	kill := func() {
		fmt.Fprintf(os.Stderr, "%s%s hit %d\n", Marker, name, n)
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
	if want.delay > 0 {
		go func() {
			time.Sleep(want.delay)
			kill()
		}()
		return
	}
	kill()
}

// Names returns the points hit so far, with their counts.
func Names() map[string]int {
	mu.Lock()
	defer mu.Unlock()
	out := make(map[string]int, len(hits))
	for k, v := range hits {
		out[k] = v
	}
	return out
}
