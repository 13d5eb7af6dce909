package logs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A follower goes on across a rotation: the lines written to the renamed file before it was
// rotated and those of the new file under the same name are all printed, in order.
func TestFollowAcrossRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "0.log")
	write := func(name string, from, to int) {
		f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for i := from; i < to; i++ {
			fmt.Fprintf(f, "%s stdout F line %d\n", time.Now().UTC().Format(time.RFC3339Nano), i)
		}
	}
	write(path, 0, 3)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got []string
	printed := make(chan string, 100)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Follow(ctx, func() string { return path }, func(s string) { printed <- s })
	}()
	await := func(want string) {
		t.Helper()
		for {
			select {
			case s := <-printed:
				got = append(got, s)
				if s == want {
					return
				}
			case <-ctx.Done():
				t.Fatalf("%q never printed; got %q", want, got)
			}
		}
	}
	await("line 2")
	// The writer rotates: one more line lands in the old file, which is then renamed aside.
	write(path, 3, 4)
	if err := os.Rename(path, path+".20260101-000000.000000000"); err != nil {
		t.Fatal(err)
	}
	write(path, 4, 6)
	await("line 5")
	cancel()
	<-done
	want := []string{"line 0", "line 1", "line 2", "line 3", "line 4", "line 5"}
	if !slices.Equal(got, want) {
		t.Errorf("printed %q, want %q", got, want)
	}
}
