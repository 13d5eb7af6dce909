package podlife

import "github.com/podlife/podlife/podlife/internal/api"

// Defaults are applied in one place: admission (Runtime.Run, Runtime.Adopt, the stop of a pod
// whose manager is gone, AddEphemeralContainer) runs WithDefaults once, then validation, and
// everything after it reads the defaulted spec and never re-defaults. The model is the API
// server's SetDefaults_* functions (k8s.io/kubernetes pkg/apis/core/v1/defaults.go): one
// defaulter per type, called from its parent's. docs/spec-defaults.md lists the table.
//
// Two defaults stay where the value becomes known: a container's stop signal (the image's
// STOPSIGNAL, read after the pull: see containerspec.StopSignal) and its user (the image's USER,
// see containerspec.Opts); the effective security settings merge pod and container contexts as the
// kubelet does at create (ocibuild.SecurityOf), which is not defaulting.

// recordedSpec is the form of a pod's spec that its record keeps and fingerprints (pod.json's
// spec and specMACs, see specfp.Fields): the spec as given, with only the pod-level defaults
// records have always had (namespace, hostname, restartPolicy, startPolicy) taken from the
// defaulted spec. Records made before defaults moved to admission are compared, and written,
// unchanged (see adopt.Adopter.CheckSpec for the fields an older podlife/kube filled in).
func recordedSpec(given, defaulted PodSpec) PodSpec {
	given.Namespace, given.Hostname = defaulted.Namespace, defaulted.Hostname
	given.RestartPolicy, given.StartPolicy = defaulted.RestartPolicy, defaulted.StartPolicy
	return given
}

// admit is admission: the spec defaulted (WithDefaults), validated, and admitted by the
// Config (its gates, Pod Security, the runtime class). It returns the defaulted spec, the
// spec's recorded form (recordedSpec) and the containerd runtime of its class.
func (r *Runtime) admit(given PodSpec) (spec, recorded PodSpec, handler ctrRuntime, err error) {
	spec = given.WithDefaults()
	if err := api.ValidateDefaulted(&spec); err != nil {
		return PodSpec{}, PodSpec{}, ctrRuntime{}, err
	}
	if err := r.cfg.admitSecurity(&spec); err != nil {
		return PodSpec{}, PodSpec{}, ctrRuntime{}, err
	}
	handler, err = r.cfg.runtimeFor(&spec, &r.specVersions)
	if err != nil {
		return PodSpec{}, PodSpec{}, ctrRuntime{}, err
	}
	return spec, recordedSpec(given, spec), handler, nil
}
