package logs

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// FuzzParseLine feeds ParseLine arbitrary lines, and lines in the format crilog.Writer
// writes: it must not panic, what it accepts must be "<time> <stream> <tag> <text>" with the
// parts it returns, and a written line must parse back to what was written.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{"", " ", "2024-01-02T03:04:05.123456789Z stdout F hello",
		"2024-01-02T03:04:05Z stderr P ", "2024-01-02T03:04:05+02:00 stdout F a b  c", "x y z",
		"2024-01-02T03:04:05Z stdout", "2024-01-02T03:04:05.Z stdout F x"} {
		f.Add([]byte(s), "stdout", false, []byte("text"))
	}
	f.Fuzz(func(t *testing.T, line []byte, stream string, partial bool, text []byte) {
		if l, ok := ParseLine(line); ok {
			if strings.Contains(l.Stream, " ") || !bytes.HasSuffix(line, []byte(l.Text)) ||
				!bytes.Contains(line, []byte(" "+l.Stream+" ")) || l.Time.IsZero() {
				t.Fatalf("%q parsed as %+v", line, l)
			}
		}
		if stream == "" || strings.ContainsAny(stream, " \n") || bytes.ContainsRune(text, '\n') {
			return
		}
		tag := byte('F')
		if partial {
			tag = 'P'
		}
		now := time.Now()
		written := now.Format(time.RFC3339Nano) + " " + stream + " " + string(tag) + " " + string(text)
		l, ok := ParseLine([]byte(written))
		if !ok || !l.Time.Equal(now) || l.Stream != stream || l.Partial != partial || l.Text != string(text) {
			t.Fatalf("%q parsed as %+v, %v", written, l, ok)
		}
	})
}
