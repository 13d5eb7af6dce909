package hook

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	start := time.Now()
	if err := Sleep(50*time.Millisecond).Run(context.Background(), Target{}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("Sleep(50ms) returned after %v", d)
	}
}

func TestSleepZero(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// sleep 0 is allowed and succeeds at once, even with a cancelled context.
	if err := Sleep(0).Run(ctx, Target{}); err != nil {
		t.Fatalf("Sleep(0) = %v", err)
	}
}

func TestSleepCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	err := Sleep(time.Hour).Run(ctx, Target{Pod: "web", Container: "app"})
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Sleep returned after %v", d)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want it to wrap context.Canceled", err)
	}
	var he *Error
	if !errors.As(err, &he) || he.Kind != "sleep" {
		t.Errorf("Run = %v, want *Error of kind sleep", err)
	}
	const want = `lifecycle hook sleep 1h0m0s for container "app" in pod "web" failed: container terminated before sleep hook finished: context canceled`
	if err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
	if !strings.Contains(err.Error(), "container terminated before sleep hook finished") {
		t.Errorf("message lacks the kubelet text")
	}
}

func TestSleepDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := Sleep(time.Hour).Run(ctx, Target{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Run = %v, want it to wrap DeadlineExceeded", err)
	}
}
