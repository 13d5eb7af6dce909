package eviction

import (
	"context"
	"testing"
	"time"

	"github.com/podlife/podlife/internal/clock"
	"github.com/podlife/podlife/podlife/internal/api"
)

// Watch measures once per period and returns the first decision over a limit; it returns
// false when the pod stops.
func TestWatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	limits := Limits{EmptyDirs: []Volume{{Name: "scratch", Limit: 10}}}
	measured := make(chan int, 10)
	n := 0
	measure := func() Usage {
		n++
		measured <- n
		return Usage{Volumes: map[string]uint64{"scratch": uint64(n * 6)}} // over at the 2nd
	}
	type result struct {
		d  Decision
		ok bool
	}
	done := make(chan result, 1)
	go func() {
		d, ok := Watch(clk, time.Second, limits, measure, nil, nil)
		done <- result{d, ok}
	}()
	for i := 1; i <= 2; i++ {
		if err := clk.BlockUntil(ctx, 1); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Second)
		if got := <-measured; got != i {
			t.Fatalf("measure %d, want %d", got, i)
		}
	}
	select {
	case r := <-done:
		if !r.ok || r.d.Message != `Usage of EmptyDir volume "scratch" exceeds the limit "10". ` {
			t.Errorf("Watch = %+v, %v", r.d, r.ok)
		}
	case <-ctx.Done():
		t.Fatal("Watch did not return")
	}
	stopped := make(chan struct{})
	close(stopped)
	if _, ok := Watch(clk, time.Second, limits, measure, stopped, nil); ok {
		t.Error("Watch of a stopped pod decided")
	}
}

// PodLimits and DiskVolumes read the spec's disk-backed volumes, not memory ones.
func TestPodLimits(t *testing.T) {
	s := &api.PodSpec{
		Volumes: []api.Volume{
			{Name: "disk", EmptyDir: &api.EmptyDirVolume{SizeLimit: 5}},
			{Name: "mem", EmptyDir: &api.EmptyDirVolume{Medium: api.MediumMemory, SizeLimit: 7}},
		},
		InitContainers: []api.ContainerSpec{{Name: "side", RestartPolicy: api.RestartAlways}},
		Containers:     []api.ContainerSpec{{Name: "app", Resources: api.Resources{EphemeralStorageLimit: 9}}},
	}
	l := PodLimits(s)
	if len(l.EmptyDirs) != 1 || l.EmptyDirs[0] != (Volume{Name: "disk", Limit: 5}) {
		t.Errorf("emptyDirs %+v", l.EmptyDirs)
	}
	if len(l.Containers) != 2 || l.Containers[0] != (Container{Name: "side", Init: true, Sidecar: true}) || l.Containers[1] != (Container{Name: "app", Limit: 9}) {
		t.Errorf("containers %+v", l.Containers)
	}
	if v := DiskVolumes(s); len(v) != 1 || v[0] != "disk" {
		t.Errorf("disk volumes %v", v)
	}
}
