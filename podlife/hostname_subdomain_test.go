package podlife_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
)

// A pod's hostname may be a DNS subdomain (Kubernetes' hostnameOverride): it is the UTS
// hostname the containers see, as the kubelet sets it.
func TestHostnameSubdomain(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget(time.Minute))
	defer cancel()
	const want = "override.example.host"
	pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: "hostname-sub", Hostname: want, TerminationGracePeriod: ptr(time.Duration(0)),
		Containers: []podlife.ContainerSpec{{Name: "c", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever}}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	defer func() { _ = pod.Remove(context.WithoutCancel(ctx)) }()
	var out bytes.Buffer
	if code, err := pod.Exec(ctx, "c", []string{"hostname"}, podlife.ExecIO{Stdout: &out}); err != nil || code != 0 {
		t.Fatalf("exec hostname: %d %v", code, err)
	}
	if got := strings.TrimSpace(out.String()); got != want {
		t.Errorf("hostname %q, want %q", got, want)
	}
}
