package podlife

import (
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/adopt"
	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/specfp"
	"github.com/podlife/podlife/podlife/internal/worker"
	"github.com/podlife/podlife/podlife/startpolicy"
	"github.com/podlife/podlife/probe"
)

// The defaulting pass: each zero optional field takes its default, a given value stays.
func TestWithDefaults(t *testing.T) {
	grace30, grace5 := 30*time.Second, 5*time.Second
	tcpProbe := probe.TCPSocket(80)
	ctr := func(c ContainerSpec) ContainerSpec {
		// What every container gets, besides what a case says.
		if c.ImagePullPolicy == "" {
			c.ImagePullPolicy = PullIfNotPresent
		}
		if c.TerminationMessagePath == "" {
			c.TerminationMessagePath = api.DefaultTerminationMessagePath
		}
		if c.TerminationMessagePolicy == "" {
			c.TerminationMessagePolicy = TerminationMessageReadFile
		}
		return c
	}
	pod := func(s PodSpec) PodSpec {
		s.Namespace, s.RestartPolicy = "default", RestartAlways
		if s.Hostname == "" {
			s.Hostname = s.Name
		}
		if s.TerminationGracePeriod == nil {
			s.TerminationGracePeriod = &grace30
		}
		return s
	}
	app := ContainerSpec{Name: "app", Image: "busybox:1.36"}
	for _, tc := range []struct {
		name     string
		in, want PodSpec
	}{
		{"pod", PodSpec{Name: "p", Containers: []ContainerSpec{app}},
			pod(PodSpec{Name: "p", Containers: []ContainerSpec{ctr(app)}})},
		{"pod fields given", PodSpec{Name: "p", Namespace: "ns", Hostname: "h", RestartPolicy: RestartNever,
			TerminationGracePeriod: &grace5, Containers: []ContainerSpec{app}},
			PodSpec{Name: "p", Namespace: "ns", Hostname: "h", RestartPolicy: RestartNever,
				TerminationGracePeriod: &grace5, Containers: []ContainerSpec{ctr(app)}}},
		{"pull policy by tag", PodSpec{Name: "p", Containers: []ContainerSpec{
			{Name: "a", Image: "busybox"}, {Name: "b", Image: "busybox:latest"}, {Name: "c", Image: "busybox:1"},
			{Name: "d", Image: "reg:5000/app@sha256:" + sha}, {Name: "e", Image: "busybox", ImagePullPolicy: PullNever}}},
			pod(PodSpec{Name: "p", Containers: []ContainerSpec{
				ctr(ContainerSpec{Name: "a", Image: "busybox", ImagePullPolicy: PullAlways}),
				ctr(ContainerSpec{Name: "b", Image: "busybox:latest", ImagePullPolicy: PullAlways}),
				ctr(ContainerSpec{Name: "c", Image: "busybox:1"}),
				ctr(ContainerSpec{Name: "d", Image: "reg:5000/app@sha256:" + sha}),
				ctr(ContainerSpec{Name: "e", Image: "busybox", ImagePullPolicy: PullNever})}})},
		{"init container, termination message, ports, dependencies", PodSpec{Name: "p",
			InitContainers: []ContainerSpec{{Name: "i", Image: "x:1", TerminationMessagePath: "/m",
				TerminationMessagePolicy: TerminationMessageFallbackToLogsOnError}},
			Containers: []ContainerSpec{{Name: "app", Image: "x:1",
				Ports:     []ContainerPort{{ContainerPort: 80}, {ContainerPort: 53, Protocol: ProtocolUDP}},
				DependsOn: []startpolicy.Dependency{{Container: "i"}, {Container: "i", Condition: startpolicy.ContainerCompleted}}}}},
			pod(PodSpec{Name: "p",
				InitContainers: []ContainerSpec{ctr(ContainerSpec{Name: "i", Image: "x:1", TerminationMessagePath: "/m",
					TerminationMessagePolicy: TerminationMessageFallbackToLogsOnError})},
				Containers: []ContainerSpec{ctr(ContainerSpec{Name: "app", Image: "x:1",
					Ports:     []ContainerPort{{ContainerPort: 80, Protocol: ProtocolTCP}, {ContainerPort: 53, Protocol: ProtocolUDP}},
					DependsOn: []startpolicy.Dependency{{Container: "i", Condition: startpolicy.ContainerStarted}, {Container: "i", Condition: startpolicy.ContainerCompleted}}})}})},
		{"probes", PodSpec{Name: "p", Containers: []ContainerSpec{{Name: "app", Image: "x:1",
			StartupProbe:   &probe.Spec{Prober: tcpProbe},
			ReadinessProbe: &probe.Spec{Prober: tcpProbe, Period: time.Second, SuccessThreshold: 2},
			LivenessProbe:  &probe.Spec{Prober: tcpProbe, Timeout: 3 * time.Second, FailureThreshold: 1}}}},
			pod(PodSpec{Name: "p", Containers: []ContainerSpec{ctr(ContainerSpec{Name: "app", Image: "x:1",
				StartupProbe:   &probe.Spec{Prober: tcpProbe, Period: 10 * time.Second, Timeout: time.Second, SuccessThreshold: 1, FailureThreshold: 3},
				ReadinessProbe: &probe.Spec{Prober: tcpProbe, Period: time.Second, Timeout: time.Second, SuccessThreshold: 2, FailureThreshold: 3},
				LivenessProbe:  &probe.Spec{Prober: tcpProbe, Period: 10 * time.Second, Timeout: 3 * time.Second, SuccessThreshold: 1, FailureThreshold: 1}})}})},
		{"volumes", PodSpec{Name: "p", Containers: []ContainerSpec{app}, Volumes: []Volume{
			{Name: "a", Image: &ImageVolume{Reference: "data"}},
			{Name: "b", Image: &ImageVolume{Reference: "data:v2"}},
			{Name: "c", Image: &ImageVolume{Reference: "data", PullPolicy: PullNever}},
			{Name: "d", Files: &FilesVolume{Medium: MediumMemory, Files: []File{{Path: "x"}, {Path: "y", Mode: 0o600}}}},
			{Name: "e", EmptyDir: &EmptyDirVolume{}}}},
			pod(PodSpec{Name: "p", Containers: []ContainerSpec{ctr(app)}, Volumes: []Volume{
				{Name: "a", Image: &ImageVolume{Reference: "data", PullPolicy: PullAlways}},
				{Name: "b", Image: &ImageVolume{Reference: "data:v2", PullPolicy: PullIfNotPresent}},
				{Name: "c", Image: &ImageVolume{Reference: "data", PullPolicy: PullNever}},
				{Name: "d", Files: &FilesVolume{Medium: MediumMemory, Files: []File{{Path: "x", Mode: 0o644}, {Path: "y", Mode: 0o600}}}},
				{Name: "e", EmptyDir: &EmptyDirVolume{}}}})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in.WithDefaults()
			if got.StartPolicy == nil {
				t.Error("no start policy")
			}
			got.StartPolicy = nil // startpolicy.Sequential(), a func: not comparable
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("defaulted\n%s\nwant\n%s", specfp.Describe(reflect.ValueOf(got), 0), specfp.Describe(reflect.ValueOf(tc.want), 0))
			}
		})
	}
}

// Defaulting twice gives what defaulting once does, and leaves the given spec (its slices,
// probes and volume sources, which the caller may reuse) as it was.
func TestWithDefaultsIdempotent(t *testing.T) {
	given := PodSpec{Name: "p",
		Volumes: []Volume{{Name: "v", Image: &ImageVolume{Reference: "data"}},
			{Name: "f", Files: &FilesVolume{Files: []File{{Path: "x"}}}}},
		InitContainers: []ContainerSpec{{Name: "i", Image: "x", LivenessProbe: &probe.Spec{Prober: probe.TCPSocket(1)}}},
		Containers: []ContainerSpec{{Name: "app", Image: "x:1", Ports: []ContainerPort{{ContainerPort: 80}},
			DependsOn: []startpolicy.Dependency{{Container: "i"}}, ReadinessProbe: &probe.Spec{Prober: probe.TCPSocket(1)}}}}
	before := specfp.Describe(reflect.ValueOf(given), 0)
	once := given.WithDefaults()
	twice := once.WithDefaults()
	if a, b := specfp.Describe(reflect.ValueOf(once), 0), specfp.Describe(reflect.ValueOf(twice), 0); a != b {
		t.Errorf("defaulted twice\n%s\nonce\n%s", b, a)
	}
	if after := specfp.Describe(reflect.ValueOf(given), 0); after != before {
		t.Errorf("the given spec changed:\n%s\nwas\n%s", after, before)
	}
	e := EphemeralContainerSpec{ContainerSpec: ContainerSpec{Name: "dbg", Image: "busybox"}, TargetContainerName: "app"}
	if a, b := specfp.Describe(reflect.ValueOf(api.EphemeralWithDefaults(e)), 0), specfp.Describe(reflect.ValueOf(api.EphemeralWithDefaults(api.EphemeralWithDefaults(e))), 0); a != b {
		t.Errorf("ephemeral container defaulted twice\n%s\nonce\n%s", b, a)
	}
	if d := api.EphemeralWithDefaults(e); d.ImagePullPolicy != PullAlways || d.TerminationMessagePath != api.DefaultTerminationMessagePath || d.Ports != nil {
		t.Errorf("ephemeral container defaults: %+v", d.ContainerSpec)
	}
}

// The record keeps the spec as given with only the four pod-level defaults records always had
// (recordedSpec): pod.json's spec and fingerprints are those of earlier versions.
func TestRecordedSpec(t *testing.T) {
	given := PodSpec{Name: "p", Containers: []ContainerSpec{{Name: "app", Image: "busybox",
		Ports: []ContainerPort{{ContainerPort: 80}}, LivenessProbe: &probe.Spec{Prober: probe.TCPSocket(80)}}}}
	rec := recordedSpec(given, given.WithDefaults())
	if rec.Namespace != "default" || rec.Hostname != "p" || rec.RestartPolicy != RestartAlways || rec.StartPolicy == nil {
		t.Errorf("pod-level defaults: %+v", rec)
	}
	c := rec.Containers[0]
	if c.ImagePullPolicy != "" || c.TerminationMessagePath != "" || c.Ports[0].Protocol != "" || c.LivenessProbe.Period != 0 || rec.TerminationGracePeriod != nil {
		t.Errorf("container defaults in the recorded form: %+v", c)
	}
}

// An adopter's spec matches the record of a pod started before defaults moved to admission,
// whether that record came from a Go spec (as given) or from podlife/kube, which then filled
// the API server's defaults in; a changed field is still named.
func TestCheckSpecAcrossDefaults(t *testing.T) {
	r := &Runtime{cfg: Config{StateDir: t.TempDir()}, log: slog.New(slog.DiscardHandler)}
	a := &adopt.Adopter{Host: func() *worker.Host { return &worker.Host{Log: r.log, SpecKey: r.specKey} }}
	key, err := r.specKey()
	if err != nil {
		t.Fatal(err)
	}
	// A manifest's pod as podlife/kube converts it now: the defaults left unset.
	given := PodSpec{Name: "web", Containers: []ContainerSpec{{Name: "app", Image: "nginx:1.27",
		Ports:          []ContainerPort{{Name: "http", ContainerPort: 80}},
		ReadinessProbe: &probe.Spec{Prober: probe.TCPSocket(80), InitialDelay: time.Second}}}}
	// The same pod as podlife/kube converted it before: the API server's defaults explicit.
	grace := 30 * time.Second
	oldKube := given
	oldKube.RestartPolicy, oldKube.TerminationGracePeriod = RestartAlways, &grace
	oc := oldKube.Containers[0]
	oc.ImagePullPolicy = PullIfNotPresent
	oc.Ports = []ContainerPort{{Name: "http", ContainerPort: 80, Protocol: ProtocolTCP}}
	oc.ReadinessProbe = &probe.Spec{Prober: probe.TCPSocket(80), InitialDelay: time.Second,
		Period: 10 * time.Second, Timeout: time.Second, SuccessThreshold: 1, FailureThreshold: 3}
	oldKube.Containers = []ContainerSpec{oc}

	record := func(s PodSpec) podRecord {
		f := specfp.Fields(recordedSpec(s, s.WithDefaults()), key)
		return podRecord{SpecMAC: specfp.Hash(f), SpecMACs: f, SpecKey: specfp.KeyID(key)}
	}
	check := func(s PodSpec, rec podRecord) error {
		d := s.WithDefaults()
		return a.CheckSpec(d, recordedSpec(s, d), rec)
	}
	for name, rec := range map[string]podRecord{"as given": record(given), "old podlife/kube": record(oldKube)} {
		if err := check(given, rec); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		changed := given
		changed.Containers = []ContainerSpec{given.Containers[0]}
		changed.Containers[0].Image = "nginx:1.28"
		var sc *SpecChangedError
		if err := check(changed, rec); !errors.As(err, &sc) || !slices.Equal(sc.Fields, []string{"containers[app].image"}) {
			t.Errorf("%s: changed image: %v", name, err)
		}
	}
}
