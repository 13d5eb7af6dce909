package attempt

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podlife/podlife/internal/crilog"
	"github.com/podlife/podlife/podlife/internal/logs"
)

// A flood of output is rotated: the attempt keeps MaxFiles files, each about MaxSize, and what
// they hold is the newest output, in order, with no line lost inside them.
func TestCRILogRotation(t *testing.T) {
	dir := t.TempDir()
	limits := crilog.Limits{MaxSize: crilog.MinMaxSize, MaxFiles: 3}
	lg, path, err := OpenCRILog(dir, 0, limits)
	if err != nil {
		t.Fatal(err)
	}
	out := lg.Stream("stdout")
	const lines = 5000
	for i := range lines {
		fmt.Fprintf(out, "line %05d %s\n", i, strings.Repeat("y", 100))
	}
	_ = out.Close()
	_ = lg.Close()

	rotated, _ := filepath.Glob(path + ".*")
	if len(rotated) != limits.MaxFiles-1 {
		t.Fatalf("%d rotated files %v, want %d", len(rotated), rotated, limits.MaxFiles-1)
	}
	slices.Sort(rotated)
	var seen []int
	for _, f := range append(rotated, path) {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > limits.MaxSize+crilog.MaxLine {
			t.Errorf("%s: %d bytes, over MaxSize %d", f, st.Size(), limits.MaxSize)
		}
		seen = append(seen, lineNumbers(t, f)...)
	}
	if len(seen) == 0 || seen[len(seen)-1] != lines-1 {
		t.Fatalf("the last line kept is not the last written: %v", seen[max(0, len(seen)-3):])
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] != seen[i-1]+1 {
			t.Fatalf("line %d follows line %d in the kept files", seen[i], seen[i-1])
		}
	}
	if seen[0] == 0 {
		t.Errorf("all %d lines kept: nothing was rotated away", lines)
	}
}

func lineNumbers(t *testing.T, path string) []int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l, ok := logs.ParseLine(sc.Bytes())
		if !ok {
			t.Fatalf("%s: unparsable line %q", path, sc.Text())
		}
		n, err := strconv.Atoi(strings.Fields(l.Text)[1])
		if err != nil {
			t.Fatalf("%s: %q", path, l.Text)
		}
		out = append(out, n)
	}
	return out
}

// Opening a new attempt's log keeps the previous attempt's files and removes older ones.
func TestCRILogPrunesOldAttempts(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"0.log", "0.log.20260101-000000.000000000", "1.log", "3.log", "3.log.20260101-000000.000000000", "notes"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	lg, _, err := OpenCRILog(dir, 4, defaultLogLimits)
	if err != nil {
		t.Fatal(err)
	}
	_ = lg.Close()
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := []string{"3.log", "3.log.20260101-000000.000000000", "4.log", "notes"}
	if !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
}
