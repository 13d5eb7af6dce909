package usage

import (
	"context"
	"log/slog"
	"testing"

	"github.com/podlife/podlife/podlife/internal/ctrd"
)

// fakeSource lists fixed containers and samples them from a map.
type fakeSource struct {
	ctrs    []Container
	samples map[string]ctrd.Sample
	sampled [][]string
}

func (f *fakeSource) Containers(_ context.Context, uid string) ([]Container, error) {
	var out []Container
	for _, c := range f.ctrs {
		if uid == "" || c.PodUID == uid {
			out = append(out, c)
		}
	}
	return out, nil
}

func (f *fakeSource) Sample(_ context.Context, ids []string) (map[string]ctrd.Sample, error) {
	f.sampled = append(f.sampled, ids)
	out := map[string]ctrd.Sample{}
	for _, id := range ids {
		if s, ok := f.samples[id]; ok {
			out[id] = s
		}
	}
	return out, nil
}

// A pod's sample: the pause is not sampled, a stopped container is left out, of two running
// attempts of one name the later one is kept, containers come sorted by name; SampleAll lists
// the containers once and leaves out those of pods it was not given.
func TestSample(t *testing.T) {
	run := func(cpu uint64) ctrd.Sample {
		return ctrd.Sample{Running: true, Metrics: ctrd.Metrics{CPUNanos: cpu}}
	}
	f := &fakeSource{
		ctrs: []Container{
			{ID: "p", PodUID: "u1", Name: "POD", Pause: true},
			{ID: "b0", PodUID: "u1", Name: "b"},
			{ID: "b1", PodUID: "u1", Name: "b", Attempt: 1},
			{ID: "a", PodUID: "u1", Name: "a"},
			{ID: "stopped", PodUID: "u1", Name: "s"},
			{ID: "o", PodUID: "other", Name: "o"},
		},
		samples: map[string]ctrd.Sample{"p": run(1), "b0": run(2), "b1": run(3), "a": run(4), "stopped": {}, "o": run(5)},
	}
	ctx, log := context.Background(), slog.New(slog.DiscardHandler)
	pod := Pod{Name: "web", UID: "u1", HostNetwork: true}
	u, err := SamplePod(ctx, f, log, pod)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.sampled) != 1 || len(f.sampled[0]) != 4 {
		t.Errorf("sampled %q, want every container but the pause", f.sampled)
	}
	if u.Name != "web" || u.UID != "u1" || len(u.Containers) != 2 || u.Containers[0].Name != "a" ||
		u.Containers[1].Name != "b" || u.Containers[1].Attempt != 1 || u.Containers[1].CPU != 3 || u.Network != nil {
		t.Errorf("usage %+v", u)
	}
	all, err := SampleAll(ctx, f, log, []Pod{pod, {Name: "idle", UID: "u2"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || len(all[0].Containers) != 2 || all[1].Name != "idle" || len(all[1].Containers) != 0 {
		t.Errorf("all %+v", all)
	}
	if none, err := SampleAll(ctx, f, log, nil); none != nil || err != nil || len(f.sampled) != 2 {
		t.Errorf("no pods: %v %v, %d samplings", none, err, len(f.sampled))
	}
}
