package api

import (
	"strings"
	"testing"
)

// PodQOS and CheckResize decide as the API server's GetPodQOS and ValidatePodResize.
func TestCheckResize(t *testing.T) {
	const mi = 1 << 20
	g := Resources{CPULimit: 100, CPURequest: 100, MemoryLimit: 64 * mi}
	b := Resources{CPURequest: 100, MemoryRequest: 32 * mi}
	pod := func(rs ...Resources) *PodSpec {
		s := &PodSpec{InitContainers: []ContainerSpec{{Name: "init", Resources: g}, {Name: "side", Resources: g, RestartPolicy: RestartAlways}}}
		for i, r := range rs {
			s.Containers = append(s.Containers, ContainerSpec{Name: string(rune('a' + i)), Resources: r})
		}
		return s
	}
	for _, tc := range []struct {
		name string
		spec *PodSpec
		ctr  string
		next Resources
		want string // a part of the error; "" none
	}{
		{"guaranteed stays", pod(g, g), "a", Resources{CPULimit: 200, CPURequest: 200, MemoryLimit: 96 * mi}, ""},
		{"guaranteed to burstable", pod(g, g), "a", Resources{CPULimit: 200, CPURequest: 100, MemoryLimit: 64 * mi}, "Pod QOS Class may not change"},
		{"burstable adds limits", pod(b), "a", Resources{CPULimit: 400, CPURequest: 200, MemoryRequest: 16 * mi, MemoryLimit: 64 * mi}, ""},
		{"limit removed", pod(g, g), "b", Resources{CPURequest: 100, MemoryLimit: 64 * mi}, "spec.containers[1].resources.limits[cpu]: Forbidden"},
		{"request removed", pod(b), "a", Resources{CPURequest: 100}, "requests[memory]: Forbidden"},
		{"request above limit", pod(b), "a", Resources{CPURequest: 300, CPULimit: 200, MemoryRequest: 32 * mi}, "must be less than or equal to cpu limit"},
		{"ephemeral storage", pod(g), "a", Resources{CPULimit: 100, CPURequest: 100, MemoryLimit: 64 * mi, EphemeralStorageLimit: 1}, "only cpu and memory"},
		{"init container", pod(g), "init", g, "only a sidecar"},
		{"sidecar", pod(g), "side", Resources{CPULimit: 50, CPURequest: 50, MemoryLimit: 64 * mi}, ""},
		{"unknown", pod(g), "nope", g, "Not found"},
	} {
		errs := CheckResize(tc.spec, nil, tc.ctr, tc.next)
		got := errs.ToAggregate()
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("%s: %v, want no error", tc.name, got)
		case tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want)):
			t.Errorf("%s: %v, want an error with %q", tc.name, got, tc.want)
		}
	}
	if q := PodQOS(pod(g, b), nil); q != QOSBurstable {
		t.Errorf("PodQOS(guaranteed, burstable) = %s", q)
	}
	if q := PodQOS(&PodSpec{Containers: []ContainerSpec{{Name: "a"}}}, nil); q != QOSBestEffort {
		t.Errorf("PodQOS(no resources) = %s", q)
	}
	if !(ResizePolicy{Memory: ResizeRestartContainer}).Restarts(g, Resources{CPULimit: 100, CPURequest: 100, MemoryLimit: 96 * mi}) ||
		(ResizePolicy{Memory: ResizeRestartContainer}).Restarts(g, Resources{CPULimit: 200, CPURequest: 200, MemoryLimit: 64 * mi}) {
		t.Error("Restarts: a memory RestartContainer policy restarts on a memory change only")
	}
}
