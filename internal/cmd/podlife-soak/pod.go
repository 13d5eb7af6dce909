package main

import (
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/startpolicy"
	"github.com/podlife/podlife/probe"
)

// soakPod is the pod of one cycle: a regular init container, a sidecar (a restartable init
// container with a readiness probe), and an app serving HTTP with postStart and preStop exec
// hooks, an exec readiness probe on what postStart wrote and an httpGet liveness probe. Every
// process ends on SIGTERM at once, so a stop costs the hooks, not the grace period.
func soakPod(name string, policy startpolicy.Policy) podlife.PodSpec {
	grace := 10 * time.Second
	data := []podlife.VolumeMount{{Name: "data", MountPath: "/data"}}
	return podlife.PodSpec{
		Name: name, TerminationGracePeriod: &grace, StartPolicy: policy,
		Volumes: []podlife.Volume{{Name: "data", EmptyDir: &podlife.EmptyDirVolume{}}},
		InitContainers: []podlife.ContainerSpec{{
			Name: "setup", Image: image, VolumeMounts: data,
			Command: []string{"/bin/sh", "-c", "mkdir -p /data/www && echo ok > /data/www/index.html"},
		}, {
			Name: "sidecar", Image: image, VolumeMounts: data, RestartPolicy: podlife.RestartAlways,
			Command:        []string{"/bin/sh", "-c", "trap 'exit 0' TERM; touch /tmp/up; sleep 3600 & wait"},
			ReadinessProbe: &probe.Spec{Prober: probe.Exec("cat", "/tmp/up"), Period: time.Second, FastPeriod: 50 * time.Millisecond},
		}},
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: image, VolumeMounts: data,
			Command:        []string{"/bin/sh", "-c", "trap 'exit 0' TERM; httpd -f -p 8080 -h /data/www & wait"},
			PostStart:      hook.Exec("/bin/sh", "-c", "echo started > /tmp/started"),
			PreStop:        hook.Exec("/bin/sh", "-c", "echo stopping > /data/stopping"),
			ReadinessProbe: &probe.Spec{Prober: probe.Exec("cat", "/tmp/started"), Period: time.Second, FastPeriod: 50 * time.Millisecond},
			LivenessProbe:  &probe.Spec{Prober: probe.HTTPGet(8080, "/"), Period: time.Second},
		}},
	}
}
