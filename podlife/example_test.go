package podlife_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
	"github.com/podlife/podlife/probe"
)

// The names a typical program uses (docs/concepts.md): run a pod, wait until it is ready,
// follow its events, stop it. Needs root and containerd.
func Example() {
	ctx := context.Background()
	rt, err := podlife.New(ctx, podlife.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close() // detaches: the pod keeps running until Stop or Remove
	pod, err := rt.Run(ctx, podlife.PodSpec{
		Name: "web",
		Containers: []podlife.ContainerSpec{{
			Name: "web", Image: "docker.io/library/nginx:1.27",
			ReadinessProbe: &probe.Spec{Prober: probe.HTTPGet(80, "/")},
		}},
	})
	if se := (*podlife.StartError)(nil); errors.As(err, &se) {
		log.Fatalf("container %q failed at step %s: %v", se.Container, se.Step, se.Err)
	} else if err != nil {
		log.Fatal(err) // errors.Is(err, podlife.ErrInvalidSpec), ErrAlreadyExists, ...
	}
	if err := pod.WaitReady(ctx); err != nil {
		log.Fatal(err)
	}
	st := pod.Status()
	fmt.Println(st.Phase, st.PodIP) // Running 10.88.0.5
	for _, ev := range pod.Events() {
		if ev.Reason == reasons.BackOff {
			fmt.Println("restarting:", ev.Container, ev.Message)
		}
	}
	if err := pod.Stop(ctx, podlife.WithGracePeriod(10*time.Second)); err != nil {
		log.Fatal(err)
	}
}

// Run a two-container pod where the first container's postStart hook must finish before the
// second container starts (the kubelet's order, podlife's default). Needs root and containerd.
func ExampleRuntime_Run() {
	ctx := context.Background()
	rt, err := podlife.New(ctx, podlife.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	pod, err := rt.Run(ctx, podlife.PodSpec{
		Name: "web",
		Containers: []podlife.ContainerSpec{
			{
				Name: "proxy", Image: "docker.io/library/busybox:1.36",
				Command:   []string{"sh", "-c", "httpd -f -p 8080"},
				PostStart: hook.Exec("sh", "-c", "until wget -q -O- http://127.0.0.1:8080/ >/dev/null; do sleep 0.1; done"),
			},
			{Name: "app", Image: "docker.io/library/busybox:1.36", Command: []string{"sleep", "3600"}},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(pod.Status().Phase, pod.Status().PodIP)
	_ = pod.Remove(ctx)
}

// Stop a pod with a shorter grace period than its spec's.
func ExamplePod_Stop() {
	ctx := context.Background()
	rt, err := podlife.New(ctx, podlife.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	pod, err := rt.Pod("web")
	if err != nil {
		log.Fatal(err)
	}
	if err := pod.Stop(ctx, podlife.WithGracePeriod(5*time.Second)); err != nil {
		log.Fatal(err)
	}
	st := pod.Status()
	fmt.Println(st.Phase, st.ContainerStatuses[0].State.Terminated.ExitCode)
}

// Pods started by other processes on the same state directory (a CLI's supervisor, an agent
// before it restarted) are found again; a pod whose manager died is removed completely.
func ExampleRuntime_ListPods() {
	ctx := context.Background()
	rt, err := podlife.New(ctx, podlife.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	recs, err := rt.ListPods(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, rec := range recs {
		fmt.Println(rec.Name, rec.Status.Phase, rec.Manager)
		if !rec.Managed() {
			pod, err := rt.Pod(rec.Name)
			if err != nil {
				log.Fatal(err)
			}
			if err := pod.Remove(ctx); err != nil {
				log.Fatal(err)
			}
		}
	}
}

// Validation names every bad field the way Kubernetes users read it.
func ExamplePodSpec_Validate() {
	spec := podlife.PodSpec{Name: "demo", Containers: []podlife.ContainerSpec{
		{Name: "app", Image: "busybox"},
		{Name: "app"},
	}}
	fmt.Println(spec.Validate())
	// Output: invalid pod "demo": spec.containers[1].name: Duplicate value: "app"; spec.containers[1].image: Required value
}

// A pod that runs as a non-root user with a read-only root, no capabilities but binding low
// ports, a shared emptyDir owned by its fsGroup, and a safe sysctl.
func ExamplePodSecurityContext() {
	ctx := context.Background()
	rt, err := podlife.New(ctx, podlife.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	pod, err := rt.Run(ctx, podlife.PodSpec{
		Name: "locked-down",
		SecurityContext: &podlife.PodSecurityContext{
			RunAsUser: new(int64(1000)), RunAsGroup: new(int64(1000)), RunAsNonRoot: new(true),
			FSGroup: new(int64(2000)),
			Sysctls: []podlife.Sysctl{{Name: "net.ipv4.ip_unprivileged_port_start", Value: "80"}},
		},
		Volumes: []podlife.Volume{{Name: "cache", EmptyDir: &podlife.EmptyDirVolume{}}},
		Containers: []podlife.ContainerSpec{{
			Name: "web", Image: "docker.io/library/busybox:1.36",
			Command:      []string{"httpd", "-f", "-p", "80", "-h", "/cache"},
			VolumeMounts: []podlife.VolumeMount{{Name: "cache", MountPath: "/cache"}},
			SecurityContext: &podlife.SecurityContext{
				ReadOnlyRootFilesystem:   true,
				AllowPrivilegeEscalation: new(false),
				Capabilities:             &podlife.Capabilities{Drop: []string{"ALL"}},
			},
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(pod.Status().Phase)
	_ = pod.Remove(ctx)
}

// Debug a running pod (kubectl debug): an ephemeral container that sees the processes of the
// pod's "app" container and reaches the pod's network, never restarted, removed with the pod.
// The handle works the same for a pod another process manages (it asks that process).
func ExamplePod_AddEphemeralContainer() {
	ctx := context.Background()
	rt, err := podlife.New(ctx, podlife.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	pod, err := rt.Pod("web") // whichever process manages it
	if err != nil {
		log.Fatal(err)
	}
	_, err = pod.AddEphemeralContainer(ctx, podlife.EphemeralContainerSpec{
		TargetContainerName: "app",
		ContainerSpec: podlife.ContainerSpec{Name: "debugger", Image: "docker.io/library/busybox:1.36",
			Command: []string{"sh", "-c", "ps; wget -q -O- http://127.0.0.1:8080/"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	// Its output, until it exits (a follower of an ephemeral container ends with it).
	if err := pod.Logs(ctx, "debugger", podlife.LogOptions{Follow: true}, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
