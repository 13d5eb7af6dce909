package eviction

import (
	"errors"
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	const mi = 1 << 20
	l := Limits{
		EmptyDirs: []Volume{{Name: "scratch", Limit: 20 * mi}, {Name: "free"}},
		Containers: []Container{
			{Name: "init", Init: true, Limit: 50 * mi},
			{Name: "side", Init: true, Sidecar: true},
			{Name: "app", Limit: 1 * mi},
			{Name: "other"},
		},
	}
	for _, tc := range []struct {
		name     string
		u        Usage
		msg, ctr string
		ok       bool
	}{
		{"within", Usage{Volumes: map[string]uint64{"scratch": 20 * mi}, Containers: map[string]uint64{"app": mi}}, "", "", false},
		{"emptyDir", Usage{Volumes: map[string]uint64{"scratch": 20*mi + 1}}, `Usage of EmptyDir volume "scratch" exceeds the limit "20Mi". `, "", true},
		{"emptyDir first", Usage{Volumes: map[string]uint64{"scratch": 21 * mi}, Containers: map[string]uint64{"app": 2 * mi}}, `Usage of EmptyDir volume "scratch" exceeds the limit "20Mi". `, "", true},
		{"pod total", Usage{Volumes: map[string]uint64{"free": 51 * mi}}, "Pod ephemeral local storage usage exceeds the total limit of containers 50Mi. ", "", true},
		{"container", Usage{Containers: map[string]uint64{"app": 2 * mi}}, `Container app exceeded its local ephemeral storage limit "1Mi". `, "app", true},
		{"unlimited container", Usage{Containers: map[string]uint64{"other": 40 * mi}}, "", "", false},
	} {
		d, ok := Decide(l, tc.u)
		if ok != tc.ok || d.Message != tc.msg || d.Container != tc.ctr {
			t.Errorf("%s: Decide = %+v, %v; want %q (%q), %v", tc.name, d, ok, tc.msg, tc.ctr, tc.ok)
		}
	}
}

func TestPodLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		cs   []Container
		want int64
		ok   bool
	}{
		{"none", []Container{{Name: "a"}}, 0, false},
		{"sum", []Container{{Name: "a", Limit: 3}, {Name: "b", Limit: 4}, {Name: "c"}}, 7, true},
		{"init larger", []Container{{Name: "i", Init: true, Limit: 10}, {Name: "a", Limit: 3}}, 10, true},
		{"no containers", nil, 0, false},
		{"sidecar before init", []Container{{Name: "s", Init: true, Sidecar: true, Limit: 2}, {Name: "i", Init: true, Limit: 9}, {Name: "a", Limit: 3}}, 11, true},
	} {
		got, ok := Limits{Containers: tc.cs}.PodLimit()
		if got != tc.want || ok != tc.ok || (Limits{Containers: tc.cs}).Any() != tc.ok {
			t.Errorf("%s: PodLimit = %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	if got, ok := (Limits{Pod: 5, Containers: []Container{{Name: "a", Limit: 9}}}).PodLimit(); got != 5 || !ok {
		t.Errorf("a pod-level limit: PodLimit = %d, %v; want 5", got, ok)
	}
	if !(Limits{EmptyDirs: []Volume{{Name: "v", Limit: 1}}}).Any() || (Limits{EmptyDirs: []Volume{{Name: "v"}}}).Any() {
		t.Error("Any of emptyDir limits")
	}
}

func TestFormatQuantity(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 1: "1", 1024: "1Ki", 20 << 20: "20Mi", 1536 << 20: "1536Mi",
		1000: "1k", 1_000_000_000: "1G", 1 << 30: "1Gi", 1001: "1001"} {
		if got := FormatQuantity(n); got != want {
			t.Errorf("FormatQuantity(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestThreshold(t *testing.T) {
	def, err := ParseThreshold("")
	if err != nil || def.Percent != 10 || def.String() != "nodefs.available<10%" {
		t.Fatalf("default = %+v %v (%s)", def, err, def)
	}
	if b, err := ParseThreshold("500Mi"); err != nil || b.Bytes != 500<<20 || b.String() != "nodefs.available<500Mi" {
		t.Fatalf("500Mi = %+v %v", b, err)
	}
	for _, bad := range []string{"x", "101%", "-1%", "1.5Mi", "-3"} {
		if _, err := ParseThreshold(bad); err == nil {
			t.Errorf("ParseThreshold(%q) succeeded", bad)
		}
	}
	if off, _ := ParseThreshold("0%"); off.Check("/d", 0, 100) != nil {
		t.Error("0% tripped")
	}
	if def.Check("/d", 10, 100) != nil {
		t.Error("10 of 100 is not below 10%")
	}
	err = def.Check("/state", 9<<20, 100<<20)
	var pe *PressureError
	if !errors.As(err, &pe) || !errors.Is(err, ErrDiskPressure) || pe.Min != 10<<20 {
		t.Fatalf("Check = %v", err)
	}
	for _, s := range []string{NodeConditionMessage, "/state", "9Mi available of 100Mi", "nodefs.available<10%"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	if avail, capacity, err := Space(t.TempDir()); err != nil || capacity == 0 || avail > capacity {
		t.Errorf("Space = %d, %d, %v", avail, capacity, err)
	}
}
