package attempt

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/podlife/podlife/internal/crilog"
	"github.com/podlife/podlife/podlife/internal/logs"
)

// The CRI log writer splits output into lines, tags streams, marks partial lines with P.
func TestCRILog(t *testing.T) {
	dir := t.TempDir()
	lg, path, err := OpenCRILog(dir, 0, defaultLogLimits)
	if err != nil {
		t.Fatal(err)
	}
	out, errw := lg.Stream("stdout"), lg.Stream("stderr")
	_, _ = out.Write([]byte("hello\nwor"))
	_, _ = errw.Write([]byte("oops\n"))
	_, _ = out.Write([]byte("ld\n"))
	_, _ = out.Write([]byte(strings.Repeat("x", crilog.MaxLine+10)))
	_, _ = out.Write([]byte("\ntail-without-newline"))
	_ = out.Close()
	_ = errw.Close()
	_ = lg.Close()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []logs.Line
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l, ok := logs.ParseLine(sc.Bytes())
		if !ok {
			t.Fatalf("unparsable line %q", sc.Text())
		}
		got = append(got, l)
	}
	want := []struct {
		stream  string
		partial bool
		text    string
	}{
		{"stdout", false, "hello"},
		{"stderr", false, "oops"},
		{"stdout", false, "world"},
		{"stdout", true, strings.Repeat("x", crilog.MaxLine)},
		{"stdout", false, "xxxxxxxxxx"},
		{"stdout", true, "tail-without-newline"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Stream != w.stream || got[i].Partial != w.partial || got[i].Text != w.text {
			t.Errorf("line %d: %s %v %.20q, want %s %v %.20q", i, got[i].Stream, got[i].Partial, got[i].Text, w.stream, w.partial, w.text)
		}
		if got[i].Time.IsZero() {
			t.Errorf("line %d has no time", i)
		}
	}
}
