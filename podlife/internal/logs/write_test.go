package logs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Write without Follow: the current attempt's lines, or the previous attempt's; no previous
// file is ErrNotFound. With Follow, it returns once ended says the container is done.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("2026-11-26T00:00:00Z stdout F "+text+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	files := []string{file("0.log", "first"), file("1.log", "second")}
	list := func() []string { return files }
	never := func(context.Context) bool { return false }
	ctx := context.Background()
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{Pod: "p", Container: "c"}, "second\n"},
		{Request{Pod: "p", Container: "c", Previous: true}, "first\n"},
	} {
		var b strings.Builder
		if err := Write(ctx, &b, c.req, list, never); err != nil || b.String() != c.want {
			t.Errorf("%+v: %q, %v; want %q", c.req, b.String(), err, c.want)
		}
	}
	one := func() []string { return files[:1] }
	err := Write(ctx, &strings.Builder{}, Request{Pod: "p", Container: "c", Previous: true}, one, never)
	if !errors.Is(err, api.ErrNotFound) {
		t.Errorf("no previous attempt: %v, want ErrNotFound", err)
	}
	var b strings.Builder
	done := func(context.Context) bool { return true }
	if err := Write(ctx, &b, Request{Pod: "p", Container: "c", Follow: true}, list, done); err != nil || b.String() != "second\n" {
		t.Errorf("follow of an ended container: %q, %v", b.String(), err)
	}
}

// A container writes no more once its pod ended, or once it is an ephemeral container that
// exited.
func TestEnded(t *testing.T) {
	exited := api.ContainerStatus{Name: "dbg", State: api.ContainerState{Terminated: &api.StateTerminated{}}}
	for _, c := range []struct {
		status api.PodStatus
		want   bool
	}{
		{api.PodStatus{Phase: api.PhaseRunning}, false},
		{api.PodStatus{Phase: api.PhaseSucceeded}, true},
		{api.PodStatus{Phase: api.PhaseFailed}, true},
		{api.PodStatus{Phase: api.PhaseRunning, EphemeralContainerStatuses: []api.ContainerStatus{exited}}, true},
	} {
		if got := Ended(c.status, "dbg"); got != c.want {
			t.Errorf("%+v: %v, want %v", c.status, got, c.want)
		}
	}
}
