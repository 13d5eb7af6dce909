package kube_test

import (
	"testing"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
)

// An image volume becomes a podlife image volume; its pull policy defaults as a container
// image's does (Always for :latest or no tag, else IfNotPresent) and is kept when given.
func TestImageVolume(t *testing.T) {
	res, err := loadString(kube.Options{}, `
apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers: [{name: app, image: busybox:1.36, volumeMounts: [{name: a, mountPath: /a}, {name: b, mountPath: /b}, {name: c, mountPath: /c}]}]
  volumes:
  - {name: a, image: {reference: "quay.io/x/data:v2"}}
  - {name: b, image: {reference: "quay.io/x/data"}}
  - {name: c, image: {reference: "quay.io/x/data:latest", pullPolicy: Never}}
`)
	if err != nil {
		t.Fatal(err)
	}
	spec := admitted(t, res)
	want := []podlife.ImageVolume{
		{Reference: "quay.io/x/data:v2", PullPolicy: podlife.PullIfNotPresent},
		{Reference: "quay.io/x/data", PullPolicy: podlife.PullAlways},
		{Reference: "quay.io/x/data:latest", PullPolicy: podlife.PullNever},
	}
	for i, w := range want {
		v := spec.Volumes[i]
		if v.Image == nil || *v.Image != w || v.EmptyDir != nil {
			t.Errorf("volume %s: %+v, want image %+v", v.Name, v, w)
		}
	}
}
