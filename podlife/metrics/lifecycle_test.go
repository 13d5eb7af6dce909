package metrics_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/metrics"
	"github.com/podlife/podlife/podlife/podlifetest"
	"github.com/podlife/podlife/probe"
)

// With CountEvents running, every probe result is counted in prober_probe_total with the
// kubelet's labels (a passing readiness probe's successes, a failing liveness probe's failures)
// and timed in prober_probe_duration_seconds, and a pod's start is observed once in
// kubelet_pod_start_duration_seconds, within the time its start really took. Against a real
// containerd (PODLIFE_TEST_CONTAINERD, as root).
func TestCollectorStartAndProbes(t *testing.T) {
	bin := os.Getenv("PODLIFE_TEST_CONTAINERD")
	if testing.Short() || bin == "" || os.Geteuid() != 0 {
		t.Skip("needs root, PODLIFE_TEST_CONTAINERD and no -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	ctrd, err := podlifetest.StartContainerd(ctx, daemon.Config{Binary: bin, Dir: filepath.Join(dir, "c")})
	if err != nil {
		t.Fatal(err)
	}
	defer ctrd.Close()
	id := make([]byte, 3)
	_, _ = rand.Read(id)
	ns := "plm-" + hex.EncodeToString(id)
	// The namespace's cgroup and runc dirs go with the test (run after the pods' removal).
	t.Cleanup(func() { _ = podlifetest.RemoveNamespaceDirs(ns) })
	rt, err := podlife.New(ctx, podlife.Config{Address: ctrd.Daemon.Address(), Namespace: ns,
		StateDir: filepath.Join(dir, "s"), ContainerLogger: os.Getenv("PODLIFE_TEST_LOGGER")})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	var buf bytes.Buffer
	if err := podlifetest.BusyboxArchive(&buf, "podlife.test/busybox:1"); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.ImportImage(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	spec := func(name string, readiness, liveness *probe.Spec) podlife.PodSpec {
		return podlife.PodSpec{Name: name, Namespace: "ns1", HostNetwork: true, Containers: []podlife.ContainerSpec{{
			Name: "c", Image: "podlife.test/busybox:1", Command: []string{"sleep", "3600"},
			StopSignal: syscall.SIGKILL, ReadinessProbe: readiness, LivenessProbe: liveness}}}
	}
	var pods []*podlife.Pod
	defer func() {
		for _, p := range pods {
			if err := p.Remove(context.WithoutCancel(ctx)); err != nil {
				t.Errorf("remove %s: %v", p.Name(), err)
			}
		}
	}()
	ready := probe.ProberFunc(func(context.Context, hook.Target) (probe.Result, string, error) {
		return probe.Success, "", nil
	})
	notLive := probe.ProberFunc(func(context.Context, hook.Target) (probe.Result, string, error) {
		return probe.Failure, "not live", nil
	})
	// The liveness probe fails every 100 ms, below its threshold: nothing is restarted.
	a, err := rt.Run(ctx, spec("a", &probe.Spec{Prober: ready, Period: 100 * time.Millisecond},
		&probe.Spec{Prober: notLive, Period: 100 * time.Millisecond, FailureThreshold: 1 << 20}))
	if err != nil {
		t.Fatal(err)
	}
	pods = append(pods, a)

	c := metrics.NewCollector(rt, metrics.WithoutDiskUsage())
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	go c.CountEvents(ctx)
	// Both probes run every 100 ms: counted once CountEvents has subscribed.
	ref := map[string]string{"container": "c", "pod": "a", "namespace": "ns1", "pod_uid": a.UID()}
	with := func(kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range ref {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	for _, want := range []map[string]string{with("probe_type", "Readiness", "result", "successful"), with("probe_type", "Liveness", "result", "failed")} {
		for {
			if m := gather(t, reg, "prober_probe_total", want); m != nil && m.GetCounter().GetValue() >= 2 {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("prober_probe_total%v never counted twice", want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for _, bad := range []map[string]string{with("probe_type", "Readiness", "result", "failed"), with("probe_type", "Liveness", "result", "successful")} {
		if m := gather(t, reg, "prober_probe_total", bad); m != nil {
			t.Errorf("prober_probe_total%v = %v, want none", bad, m.GetCounter().GetValue())
		}
	}
	for _, kind := range []string{"Readiness", "Liveness"} {
		want := map[string]string{"probe_type": kind, "container": "c", "pod": "a", "namespace": "ns1"}
		m := gather(t, reg, "prober_probe_duration_seconds", want)
		// An in-process prober answers at once: well under its 1 s timeout.
		if h := m.GetHistogram(); h.GetSampleCount() < 1 || h.GetSampleSum() <= 0 || h.GetSampleSum() > float64(h.GetSampleCount()) {
			t.Errorf("prober_probe_duration_seconds%v: %d samples, sum %v s", want, h.GetSampleCount(), h.GetSampleSum())
		}
	}
	if st := a.Status(); len(st.ContainerStatuses) != 1 || !st.ContainerStatuses[0].Ready || st.ContainerStatuses[0].RestartCount != 0 {
		t.Errorf("pod a: %+v, want its container ready and never restarted", st.ContainerStatuses)
	}

	// A pod started now: its start observed once.
	t0 := time.Now()
	b, err := rt.Run(ctx, spec("b", nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	pods = append(pods, b)
	if _, err := b.WaitFor(ctx, func(st podlife.PodStatus) bool {
		return len(st.ContainerStatuses) == 1 && st.ContainerStatuses[0].State.Running != nil
	}); err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	var h *dto.Histogram
	for {
		if m := gather(t, reg, "kubelet_pod_start_duration_seconds", nil); m != nil && m.GetHistogram().GetSampleCount() >= 1 {
			h = m.GetHistogram()
			break
		}
		if ctx.Err() != nil {
			t.Fatal("kubelet_pod_start_duration_seconds never observed pod b's start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Pod a's start may have been observed too, if CountEvents subscribed before its Started.
	if n := h.GetSampleCount(); n > 2 || h.GetSampleSum() <= 0 || h.GetSampleSum() > float64(n)*took.Seconds()+1 {
		t.Errorf("start histogram: %d samples, sum %.3f s; pod b took %v", n, h.GetSampleSum(), took)
	}
	// The start sequence's steps of pod b (and maybe a): each observed, each within the start.
	for _, step := range []string{"sandbox", "create", "start"} {
		m := gather(t, reg, "podlife_start_step_duration_seconds", map[string]string{"step": step})
		if h := m.GetHistogram(); h.GetSampleCount() < 1 || h.GetSampleCount() > 2 || h.GetSampleSum() < 0 || h.GetSampleSum() > float64(h.GetSampleCount())*took.Seconds()+1 {
			t.Errorf("podlife_start_step_duration_seconds{step=%q}: %d samples, sum %.3f s; pod b took %v", step, h.GetSampleCount(), h.GetSampleSum(), took)
		}
	}
}

// gather returns the metric of the family whose labels include want, nil if none.
func gather(t *testing.T, reg *prometheus.Registry, family string, want map[string]string) *dto.Metric {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, f := range families {
		if f.GetName() != family {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if have[k] != v {
					continue next
				}
			}
			return m
		}
	}
	return nil
}
