package podlife_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/startpolicy"
	"github.com/podlife/podlife/probe"
)

// FuzzValidate feeds PodSpec.Validate specs decoded from JSON, with hooks and probers set as
// flags say: it must not panic, and it must return nil or a *ValidationError that matches
// ErrInvalidSpec and names a field for every error, the same on a second call.
func FuzzValidate(f *testing.F) {
	add := func(s podlife.PodSpec, flags uint8) {
		b, err := json.Marshal(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, flags)
	}
	add(validPod(), 0)
	for _, is := range invalidSpecs() {
		s := is.spec
		for i := range s.Containers { // hooks do not marshal: flags set them back
			s.Containers[i].PostStart, s.Containers[i].PreStop = nil, nil
		}
		add(s, 0)
	}
	probed := validPod()
	probed.Containers[0].LivenessProbe = &probe.Spec{FailureThreshold: 3}
	probed.Containers = append(probed.Containers, podlife.ContainerSpec{Name: "b", Image: "busybox", DependsOn: []startpolicy.Dependency{{Container: "app"}}})
	add(probed, 7)
	f.Fuzz(func(t *testing.T, data []byte, flags uint8) {
		var s podlife.PodSpec
		if json.Unmarshal(data, &s) != nil {
			return
		}
		for _, cs := range [][]podlife.ContainerSpec{s.InitContainers, s.Containers} {
			for i := range cs {
				c := &cs[i]
				if flags&1 != 0 {
					c.PostStart = hook.Exec("true")
				}
				if flags&2 != 0 {
					c.PreStop = hook.HTTPGet(int(flags), "/")
				}
				for _, p := range []*probe.Spec{c.StartupProbe, c.ReadinessProbe, c.LivenessProbe} {
					if p != nil && flags&4 != 0 {
						p.Prober = probe.Exec("true")
					}
				}
			}
		}
		err := s.Validate()
		if err == nil {
			return
		}
		var ve *podlife.ValidationError
		if !errors.As(err, &ve) || !errors.Is(err, podlife.ErrInvalidSpec) {
			t.Fatalf("error %v (%T) is not a *ValidationError matching ErrInvalidSpec", err, err)
		}
		if len(ve.Errs) == 0 {
			t.Fatal("ValidationError without errors")
		}
		for _, fe := range ve.Errs {
			if fe.Field == "" {
				t.Fatalf("error without a field: %v", fe)
			}
		}
		if again := s.Validate(); again == nil || again.Error() != err.Error() {
			t.Fatalf("second Validate: %v, first: %v", again, err)
		}
	})
}
