package podlife_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/metrics"
	"github.com/podlife/podlife/podlife/reasons"
	"github.com/podlife/podlife/podlife/startpolicy"
)

// An OOM kill in a container (a child process over the memory limit; the container goes on) is
// counted in its usage and by the collector; a restarted container's counters are its new
// attempt's, and no CPU rate is given across the restart, as the kubelet does.
func TestPodUsageCountsOOMKillsAndRestarts(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const name = "usage-oom"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := removePod(ctx, h.rt, name); err != nil && !errors.Is(err, podlife.ErrNotFound) {
			t.Errorf("cleanup: %v", err)
		}
	})
	coll := metrics.NewCollector(h.rt)
	countCtx, stopCounting := context.WithCancel(ctx)
	counted := make(chan struct{})
	go func() { coll.CountEvents(countCtx); close(counted) }()
	defer func() { stopCounting(); <-counted }()
	// crash burns CPU for about 2 s of uptime, then fails: its first restart is immediate.
	burnThenFail := `end=$(( $(cut -d. -f1 /proc/uptime) + 2 )); while [ $(cut -d. -f1 /proc/uptime) -lt $end ]; do :; done; exit 1`
	pod, err := h.rt.Run(ctx, podlife.PodSpec{Name: name, TerminationGracePeriod: ptr(time.Second),
		Containers: []podlife.ContainerSpec{
			// tail keeps a line without a newline whole: 100 MiB of zeros is over the limit.
			{Name: "oom", Image: testImage, Resources: podlife.Resources{MemoryLimit: 32 << 20},
				Command: []string{"/bin/sh", "-c", "head -c 100m /dev/zero | tail > /dev/null; " + loopForever}},
			{Name: "crash", Image: testImage, Command: []string{"/bin/sh", "-c", burnThenFail}},
		}, StartPolicy: startpolicy.Parallel(0)})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var first podlife.ContainerUsage
	for first.Name == "" {
		u, err := pod.Usage(ctx)
		if err != nil {
			t.Fatalf("Usage: %v", err)
		}
		if c, ok := u.Container("crash"); ok && c.Attempt == 0 && c.CPU > 0 {
			first = c
		}
		if ctx.Err() != nil {
			t.Fatal("crash's first attempt never sampled")
		}
		time.Sleep(50 * time.Millisecond)
	}
	var restarted, oom podlife.ContainerUsage
	for restarted.Name == "" || oom.OOMKills == 0 {
		u, err := pod.Usage(ctx)
		if err != nil {
			t.Fatalf("Usage: %v", err)
		}
		if c, ok := u.Container("crash"); ok && c.Attempt >= 1 {
			restarted = c
		}
		if c, ok := u.Container("oom"); ok {
			oom = c
		}
		if ctx.Err() != nil {
			t.Fatalf("never saw both a restart and an OOM kill: crash %+v, oom %+v", restarted, oom)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if oom.Attempt != 0 || oom.OOMKills < 1 {
		t.Errorf("oom: %+v, want attempt 0 with an OOM kill counted", oom)
	}
	if _, ok := podlife.CPURate(first, restarted); ok {
		t.Errorf("a CPU rate across crash's restart: %+v -> %+v", first, restarted)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(coll)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if f.GetName() == "podlife_events_total" && labels["reason"] == string(reasons.Started) {
				if metricValue(m) < 3 {
					t.Errorf("%s%v = %v, want 3 starts at least (oom, crash twice)", f.GetName(), labels, metricValue(m))
				}
				found++
			}
			if labels["pod"] != name {
				continue
			}
			switch {
			case f.GetName() == "container_oom_events_total" && labels["container"] == "oom",
				f.GetName() == "kube_pod_container_status_restarts_total" && labels["container"] == "crash":
				found++
			}
			switch {
			case f.GetName() == "container_oom_events_total" && labels["container"] == "oom" && metricValue(m) < 1,
				f.GetName() == "kube_pod_container_status_restarts_total" && labels["container"] == "crash" && metricValue(m) < 1:
				t.Errorf("%s%v = %v, want at least 1", f.GetName(), labels, metricValue(m))
			}
		}
	}
	if found != 3 {
		t.Errorf("found %d of the 3 series wanted", found)
	}
}
