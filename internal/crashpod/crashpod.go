// Package crashpod holds the pod of podlife's crash-point tests: internal/cmd/crashmgr runs it
// and is killed at a failpoint; podlife/crash_linux_test.go adopts what is left with the same
// spec. It imports podlife and hook; nothing but those two imports it.
package crashpod

import (
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
)

// Spec is the crash tests' pod: "a" with a slow postStart and a slow preStop, then "b", which
// exits once (3) and is restarted.
func Spec(name, image string) podlife.PodSpec {
	grace := 5 * time.Second
	return podlife.PodSpec{
		Name: name, TerminationGracePeriod: &grace,
		Volumes: []podlife.Volume{{Name: "m", EmptyDir: &podlife.EmptyDirVolume{}}},
		Containers: []podlife.ContainerSpec{{
			Name: "a", Image: image,
			Command:      []string{"/bin/sh", "-c", `trap 'exit 0' TERM; while :; do sleep 0.1; done`},
			VolumeMounts: []podlife.VolumeMount{{Name: "m", MountPath: "/m"}},
			PostStart:    hook.Exec("/bin/sh", "-c", "sleep 1; touch /m/poststart"),
			PreStop:      hook.Exec("/bin/sh", "-c", "sleep 1; touch /m/prestop"),
		}, {
			Name: "b", Image: image,
			Command:      []string{"/bin/sh", "-c", `[ -e /m/b-ran ] || { touch /m/b-ran; exit 3; }; trap 'exit 0' TERM; while :; do sleep 0.1; done`},
			VolumeMounts: []podlife.VolumeMount{{Name: "m", MountPath: "/m"}},
		}},
	}
}

// PoolSpec is the warm pool crash tests' pod (podlife/pool_crash_linux_test.go): two containers,
// "a" then "b" (Sequential, the default), that loop until a SIGTERM, with an emptyDir volume;
// no hook, so that the take's steps are all there is between the kill and the start.
func PoolSpec(name, image string) podlife.PodSpec {
	grace := 2 * time.Second
	loop := []string{"/bin/sh", "-c", `trap 'exit 0' TERM; while :; do sleep 0.1; done`}
	mounts := []podlife.VolumeMount{{Name: "m", MountPath: "/m"}}
	return podlife.PodSpec{
		Name: name, TerminationGracePeriod: &grace,
		Volumes: []podlife.Volume{{Name: "m", EmptyDir: &podlife.EmptyDirVolume{}}},
		Containers: []podlife.ContainerSpec{
			{Name: "a", Image: image, Command: loop, VolumeMounts: mounts},
			{Name: "b", Image: image, Command: loop, VolumeMounts: mounts},
		},
	}
}
