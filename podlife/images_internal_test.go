package podlife

import "testing"

// The Kubernetes pull-policy defaults.
func TestDefaultPullPolicy(t *testing.T) {
	for image, want := range map[string]PullPolicy{
		"busybox":                    PullAlways,
		"busybox:latest":             PullAlways,
		"busybox:1.36":               PullIfNotPresent,
		"reg:5000/app@sha256:" + sha: PullIfNotPresent,
	} {
		if got := (PodSpec{Containers: []ContainerSpec{{Image: image}}}).WithDefaults().Containers[0].ImagePullPolicy; got != want {
			t.Errorf("%s: %s, want %s", image, got, want)
		}
	}
	if got := (PodSpec{Containers: []ContainerSpec{{Image: "busybox", ImagePullPolicy: PullNever}}}).WithDefaults().Containers[0].ImagePullPolicy; got != PullNever {
		t.Errorf("explicit policy overridden: %s", got)
	}
}

const sha = "0000000000000000000000000000000000000000000000000000000000000000"
