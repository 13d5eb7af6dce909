package main

import (
	"flag"
	"io"
	"testing"

	"github.com/podlife/podlife/podlife"
)

// --runtime-class NAME=BINARY defines classes of the runc shim running BINARY; malformed or
// duplicated definitions are refused.
func TestRuntimeClassFlags(t *testing.T) {
	parse := func(args ...string) (map[string]podlife.RuntimeClass, error) {
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		r := addRuntimeClassFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return r.classes()
	}
	got, err := parse("--runtime-class", "fast=/usr/bin/crun", "--runtime-class=other=runc")
	if err != nil || len(got) != 2 || got["fast"].BinaryName != "/usr/bin/crun" || got["other"].BinaryName != "runc" {
		t.Errorf("classes: %v, %v", got, err)
	}
	if got, err := parse(); err != nil || got != nil {
		t.Errorf("no flag: %v, %v", got, err)
	}
	for _, bad := range [][]string{{"--runtime-class", "fast"}, {"--runtime-class", "=crun"}, {"--runtime-class", "a=x", "--runtime-class", "a=y"}} {
		if _, err := parse(bad...); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
