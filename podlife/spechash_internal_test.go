package podlife

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/specfp"
	"github.com/podlife/podlife/probe"
)

// baseSpec is a spec in its recorded form (see recordedSpec), as specFields gets it.
func baseSpec() PodSpec {
	s := PodSpec{Name: "p", Containers: []ContainerSpec{{
		Name: "web", Image: "busybox", Command: []string{"sleep", "1"},
		PostStart:     hook.Exec("true"),
		LivenessProbe: &probe.Spec{Prober: probe.Exec("true"), Period: time.Second},
	}}}
	return recordedSpec(s, s.WithDefaults())
}

// The spec fingerprint names what changed, exec commands behind interfaces included, and
// nothing when the spec is the same one built again.
func TestSpecDiff(t *testing.T) {
	same := specfp.Fields(baseSpec(), testSpecKey)
	if d := specfp.Diff(same, specfp.Fields(baseSpec(), testSpecKey)); len(d) != 0 {
		t.Fatalf("same spec differs in %q", d)
	}
	for _, tc := range []struct {
		change func(*PodSpec)
		want   []string
	}{
		{func(s *PodSpec) { s.Containers[0].Image = "other" }, []string{"containers[web].image"}},
		{func(s *PodSpec) { s.Containers[0].PostStart = hook.Exec("false") }, []string{"containers[web].postStart"}},
		{func(s *PodSpec) { s.Containers[0].LivenessProbe.Prober = probe.Exec("false") }, []string{"containers[web].livenessProbe"}},
		{func(s *PodSpec) { s.RestartPolicy = RestartNever }, []string{"restartPolicy"}},
		{func(s *PodSpec) { s.Containers[0].Name = "api" }, []string{
			"containers",
			"containers[api].args", "containers[api].command", "containers[api].dependsOn", "containers[api].env",
		}},
	} {
		s := baseSpec()
		tc.change(&s)
		got := specfp.Diff(same, specfp.Fields(s, testSpecKey))
		if tc.want[0] == "containers" {
			// A renamed container: every field of both names differs.
			if !slices.Contains(got, "containers") || !slices.Contains(got, "containers[web].image") || !slices.Contains(got, "containers[api].image") {
				t.Errorf("renamed container: diff %q", got)
			}
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("diff %q, want %q", got, tc.want)
		}
		if specfp.Hash(specfp.Fields(s, testSpecKey)) == specfp.Hash(same) {
			t.Errorf("%q: same hash", tc.want)
		}
	}
}

// A Go hook counts by its type: two closures are the same field, a Go hook and an exec one differ.
func TestSpecDiffGoHook(t *testing.T) {
	a, b := baseSpec(), baseSpec()
	a.Containers[0].PreStop = hook.HandlerFunc(func(context.Context, hook.Target) error { return nil })
	b.Containers[0].PreStop = hook.HandlerFunc(func(context.Context, hook.Target) error { return context.Canceled })
	if d := specfp.Diff(specfp.Fields(a, testSpecKey), specfp.Fields(b, testSpecKey)); len(d) != 0 {
		t.Errorf("two Go hooks differ in %q", d)
	}
	b.Containers[0].PreStop = hook.Exec("true")
	if d := specfp.Diff(specfp.Fields(a, testSpecKey), specfp.Fields(b, testSpecKey)); !slices.Equal(d, []string{"containers[web].preStop"}) {
		t.Errorf("Go hook vs exec hook: diff %q", d)
	}
}

// An env variable without From has the fingerprint it had before EnvVar had the field, so a
// pod started by an older manager is adopted as the same spec; From set is a change.
func TestSpecFingerprintEnvFrom(t *testing.T) {
	v := EnvVar{Name: "A", Value: "b"}
	if got, want := specfp.Describe(reflect.ValueOf(v), 0), `podlife.EnvVar{Name:"A",Value:"b"}`; got != want {
		t.Errorf("describe = %s, want %s (an older manager's)", got, want)
	}
	a, b := baseSpec(), baseSpec()
	a.Containers[0].Env = []EnvVar{{Name: "IP"}}
	b.Containers[0].Env = []EnvVar{{Name: "IP", From: api.FieldPodIP}}
	if d := specfp.Diff(specfp.Fields(a, testSpecKey), specfp.Fields(b, testSpecKey)); !slices.Equal(d, []string{"containers[web].env"}) {
		t.Errorf("From set: diff %q", d)
	}
}

// Fields added after the fingerprints began are left out while zero: a record of an older
// manager (which has none of them) still matches a spec that does not set them; setting one is
// a change named by its field.
func TestSpecFieldsAddedLater(t *testing.T) {
	fields := specfp.Fields(baseSpec(), testSpecKey)
	for _, k := range []string{"containers[web].terminationMessagePath", "containers[web].terminationMessagePolicy"} {
		if _, ok := fields[k]; ok {
			t.Errorf("unset %s is fingerprinted: older records would not match", k)
		}
	}
	s := baseSpec()
	s.Containers[0].TerminationMessagePolicy = TerminationMessageFallbackToLogsOnError
	if d := specfp.Diff(fields, specfp.Fields(s, testSpecKey)); !slices.Equal(d, []string{"containers[web].terminationMessagePolicy"}) {
		t.Errorf("diff %q, want [containers[web].terminationMessagePolicy]", d)
	}
}
