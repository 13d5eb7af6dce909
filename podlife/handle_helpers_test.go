package podlife_test

import (
	"context"
	"sync"
	"testing"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
)

// stopPod, removePod and execPod act on the named pod through its handle (Runtime.Pod), whichever
// process manages it.
func stopPod(ctx context.Context, rt *podlife.Runtime, name string, opts ...podlife.StopOption) error {
	p, err := rt.Pod(name)
	if err != nil {
		return err
	}
	return p.Stop(ctx, opts...)
}

func removePod(ctx context.Context, rt *podlife.Runtime, name string, opts ...podlife.StopOption) error {
	p, err := rt.Pod(name)
	if err != nil {
		return err
	}
	return p.Remove(ctx, opts...)
}

func execPod(ctx context.Context, rt *podlife.Runtime, pod, container string, argv []string, streams podlife.ExecIO) (int, error) {
	p, err := rt.Pod(pod)
	if err != nil {
		return -1, err
	}
	return p.Exec(ctx, container, argv, streams)
}

// execOutput runs argv in the pod's container with Pod.Exec and returns its exit code and its
// combined output, as a hook's exec sees them.
func execOutput(ctx context.Context, pod *podlife.Pod, container string, argv []string) (hook.ExecResult, error) {
	var out lockedBuffer
	code, err := pod.Exec(ctx, container, argv, podlife.ExecIO{Stdout: &out, Stderr: &out})
	return hook.ExecResult{ExitCode: code, Output: out.Bytes()}, err
}

// lockedBuffer is a buffer that a process's stdout and stderr copies may write at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf...)
}

// podOf returns the handle on the named pod of rt's state directory.
func podOf(t *testing.T, rt *podlife.Runtime, name string) *podlife.Pod {
	t.Helper()
	p, err := rt.Pod(name)
	if err != nil {
		t.Fatalf("Pod(%q): %v", name, err)
	}
	return p
}
