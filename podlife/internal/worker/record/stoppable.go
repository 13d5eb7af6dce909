package record

import . "github.com/podlife/podlife/podlife/internal/api"

// StoppableSpec is spec without what cannot or must not be persisted: Go hooks and probers (and
// with them exec ones: a stop without the manager runs no hooks), the start policy, OCIHook,
// pull credentials, and every value that may be a secret: env values (from a Secret, or set
// by a Go program, which may hold anything), command and args (a manifest's $(VAR) expands
// env values into them), and files volumes' data (their paths and modes stay). None of these
// is needed to stop or remove a pod; the record's fingerprints (see specfp.Fields, keyed) are
// what tells a changed value at an adoption.
func StoppableSpec(spec PodSpec) PodSpec {
	spec.StartPolicy, spec.PullCredentials = nil, nil
	strip := func(cs []ContainerSpec) []ContainerSpec {
		out := make([]ContainerSpec, len(cs))
		for i, c := range cs {
			c.PostStart, c.PreStop = nil, nil
			c.StartupProbe, c.ReadinessProbe, c.LivenessProbe = nil, nil, nil
			c.OCIHook = nil
			c.Env, c.Command, c.Args = nil, nil, nil
			out[i] = c
		}
		return out
	}
	spec.InitContainers, spec.Containers = strip(spec.InitContainers), strip(spec.Containers)
	vols := make([]Volume, len(spec.Volumes))
	for i, v := range spec.Volumes {
		if v.Files != nil {
			fv := *v.Files
			fv.Files = make([]File, len(v.Files.Files))
			for j, f := range v.Files.Files {
				fv.Files[j] = File{Path: f.Path, Mode: f.Mode}
			}
			v.Files = &fv
		}
		vols[i] = v
	}
	if spec.Volumes != nil {
		spec.Volumes = vols
	}
	return spec
}
