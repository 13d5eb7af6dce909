package kube_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
	"github.com/podlife/podlife/probe"
)

func check[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func checkSlice[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func describeHook(h hook.Handler) string {
	if h == nil {
		return ""
	}
	return hook.Describe(h)
}

// checkProbe compares a probe's handler and timing.
func checkProbe(t *testing.T, what string, got *probe.Spec, prober string, delay, period, timeout time.Duration, success, failure int) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: no probe", what)
		return
	}
	check(t, what+" prober", probe.Describe(got.Prober), prober)
	check(t, what+" initial delay", got.InitialDelay, delay)
	check(t, what+" period", got.Period, period)
	check(t, what+" timeout", got.Timeout, timeout)
	check(t, what+" success threshold", got.SuccessThreshold, success)
	check(t, what+" failure threshold", got.FailureThreshold, failure)
}

// TestDocsExamples loads the pod examples of the Kubernetes documentation and checks what
// they become.
func TestDocsExamples(t *testing.T) {
	const s = time.Second
	tests := []struct {
		file  string
		check func(t *testing.T, res *kube.Result)
	}{
		{"lifecycle-events.yaml", func(t *testing.T, res *kube.Result) {
			spec := admitted(t, res)
			check(t, "name", spec.Name, "lifecycle-demo")
			check(t, "namespace", spec.Namespace, "default")
			check(t, "restartPolicy", spec.RestartPolicy, podlife.RestartAlways)
			check(t, "grace", *spec.TerminationGracePeriod, 30*s)
			c := spec.Containers[0]
			check(t, "image", c.Image, "nginx")
			check(t, "pull policy", c.ImagePullPolicy, podlife.PullAlways)
			check(t, "postStart", describeHook(c.PostStart), "exec [/bin/sh -c echo Hello from the postStart handler > /usr/share/message]")
			check(t, "preStop", describeHook(c.PreStop), "exec [/bin/sh -c nginx -s quit; while killall -0 nginx; do sleep 1; done]")
		}},
		{"init-containers.yaml", func(t *testing.T, res *kube.Result) {
			spec := admitted(t, res)
			check(t, "init containers", len(spec.InitContainers), 1)
			ic := spec.InitContainers[0]
			checkSlice(t, "init command", ic.Command, []string{"wget", "-O", "/work-dir/index.html", "http://info.cern.ch"})
			check(t, "init pull policy", ic.ImagePullPolicy, podlife.PullIfNotPresent)
			check(t, "init mount", ic.VolumeMounts[0], podlife.VolumeMount{Name: "workdir", MountPath: "/work-dir"})
			check(t, "port", spec.Containers[0].Ports[0], podlife.ContainerPort{ContainerPort: 80, Protocol: podlife.ProtocolTCP})
			check(t, "volume", *spec.Volumes[0].EmptyDir, podlife.EmptyDirVolume{})
			check(t, "dns (dnsPolicy Default: the host's)", spec.DNS == nil, true)
		}},
		{"myapp-pod.yaml", func(t *testing.T, res *kube.Result) {
			spec := admitted(t, res)
			check(t, "label", spec.Labels["app.kubernetes.io/name"], "MyApp")
			check(t, "init containers", len(spec.InitContainers), 2)
			// $(cat ...) is not a variable: it stays as written for the shell.
			check(t, "init command", spec.InitContainers[0].Command[2],
				"until nslookup myservice.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for myservice; sleep 2; done")
		}},
		{"exec-liveness.yaml", func(t *testing.T, res *kube.Result) {
			c := admitted(t, res).Containers[0]
			check(t, "command", len(c.Command), 0)
			checkSlice(t, "args", c.Args, []string{"/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"})
			checkProbe(t, "liveness", c.LivenessProbe, "exec [cat /tmp/healthy]", 5*s, 5*s, s, 1, 3)
		}},
		{"http-liveness.yaml", func(t *testing.T, res *kube.Result) {
			c := admitted(t, res).Containers[0]
			checkProbe(t, "liveness", c.LivenessProbe, "httpGet http://:8080/healthz", 3*s, 3*s, s, 1, 3)
		}},
		{"tcp-liveness-readiness.yaml", func(t *testing.T, res *kube.Result) {
			c := admitted(t, res).Containers[0]
			checkProbe(t, "readiness", c.ReadinessProbe, "tcpSocket :8080", 15*s, 10*s, s, 1, 3)
			checkProbe(t, "liveness", c.LivenessProbe, "tcpSocket :8080", 15*s, 10*s, s, 1, 3)
		}},
		{"grpc-liveness.yaml", func(t *testing.T, res *kube.Result) {
			c := admitted(t, res).Containers[0]
			checkProbe(t, "liveness", c.LivenessProbe, `grpc :2379 ""`, 10*s, 10*s, s, 1, 3)
			check(t, "pull policy", c.ImagePullPolicy, podlife.PullIfNotPresent)
		}},
		{"named-port-probes.yaml", func(t *testing.T, res *kube.Result) {
			c := admitted(t, res).Containers[0]
			checkProbe(t, "liveness", c.LivenessProbe, "httpGet http://:8080/healthz", 0, 10*s, s, 1, 1)
			checkProbe(t, "startup", c.StartupProbe, "httpGet http://:8080/healthz", 0, 10*s, s, 1, 30)
		}},
		{"two-container-pod.yaml", func(t *testing.T, res *kube.Result) {
			spec := admitted(t, res)
			check(t, "restartPolicy", spec.RestartPolicy, podlife.RestartNever)
			check(t, "containers", len(spec.Containers), 2)
			check(t, "nginx mount", spec.Containers[0].VolumeMounts[0], podlife.VolumeMount{Name: "shared-data", MountPath: "/usr/share/nginx/html"})
			check(t, "debian mount", spec.Containers[1].VolumeMounts[0], podlife.VolumeMount{Name: "shared-data", MountPath: "/pod-data"})
			checkSlice(t, "debian args", spec.Containers[1].Args, []string{"-c", "echo Hello from the debian container > /pod-data/index.html"})
		}},
		{"deployment-sidecar.yaml", func(t *testing.T, res *kube.Result) {
			spec := admitted(t, res)
			check(t, "source", res.Pods[0].Source.String(), "testdata/deployment-sidecar.yaml#0 Deployment/myapp")
			check(t, "name", spec.Name, "myapp")
			check(t, "labels", fmt.Sprint(spec.Labels), "map[app:myapp]")
			check(t, "restartPolicy", spec.RestartPolicy, podlife.RestartAlways)
			check(t, "sidecar", spec.InitContainers[0].RestartPolicy, podlife.RestartAlways)
			check(t, "warnings", len(res.Warnings), 0)
		}},
		{"job-sidecar.yaml", func(t *testing.T, res *kube.Result) {
			spec := admitted(t, res)
			check(t, "name", spec.Name, "myjob")
			check(t, "restartPolicy", spec.RestartPolicy, podlife.RestartNever)
			check(t, "sidecar", spec.InitContainers[0].RestartPolicy, podlife.RestartAlways)
		}},
		{"sidecar-startup.yaml", func(t *testing.T, res *kube.Result) {
			spec := admitted(t, res)
			sc := spec.InitContainers[0]
			check(t, "sidecar", sc.RestartPolicy, podlife.RestartAlways)
			checkProbe(t, "sidecar startup", sc.StartupProbe, "httpGet http://:80/", 5*s, 30*s, 20*s, 1, 10)
			check(t, "pull policy", sc.ImagePullPolicy, podlife.PullIfNotPresent)
		}},
		{"dependent-envars.yaml", func(t *testing.T, res *kube.Result) {
			c := admitted(t, res).Containers[0]
			check(t, "env", fmt.Sprint(c.Env), "[{SERVICE_PORT 80} {SERVICE_IP 172.17.0.1} "+
				"{UNCHANGED_REFERENCE $(PROTOCOL)://172.17.0.1:80} {PROTOCOL https} "+
				"{SERVICE_ADDRESS https://172.17.0.1:80} {ESCAPED_REFERENCE $(PROTOCOL)://172.17.0.1:80}]")
		}},
		{"configmap-pod.yaml", func(t *testing.T, res *kube.Result) {
			spec := admitted(t, res)
			c := spec.Containers[0]
			check(t, "env", fmt.Sprint(c.Env), "[{PLAYER_INITIAL_LIVES 3} {UI_PROPERTIES_FILE_NAME user-interface.properties}]")
			check(t, "mount", c.VolumeMounts[0], podlife.VolumeMount{Name: "config", MountPath: "/config", ReadOnly: true})
			f := spec.Volumes[0].Files
			check(t, "medium", f.Medium, podlife.MediumDefault)
			check(t, "files", len(f.Files), 2)
			check(t, "file path", f.Files[0].Path, "game.properties")
			check(t, "file data", string(f.Files[0].Data), "enemy.types=aliens,monsters\nplayer.maximum-lives=5    \n")
			check(t, "file mode", f.Files[1].Mode, 0o644)
		}},
		{"downward-api-volume.yaml", func(t *testing.T, res *kube.Result) {
			f := onePod(t, res).Volumes[0].Files
			check(t, "medium", f.Medium, podlife.MediumMemory)
			check(t, "labels", string(f.Files[0].Data), "cluster=\"test-cluster1\"\nrack=\"rack-22\"\nzone=\"us-est-coast\"")
			check(t, "annotations", string(f.Files[1].Data), "build=\"two\"\nbuilder=\"john-doe\"")
		}},
		{"subpath-expr.yaml", func(t *testing.T, res *kube.Result) {
			spec := admitted(t, res)
			check(t, "env", fmt.Sprint(spec.Containers[0].Env), "[{POD_NAME pod1}]")
			check(t, "mount", spec.Containers[0].VolumeMounts[0], podlife.VolumeMount{Name: "workdir1", MountPath: "/logs", SubPath: "pod1"})
			check(t, "hostPath", *spec.Volumes[0].HostPath, podlife.HostPathVolume{Path: "/var/log/pods"})
		}},
		{"secret-pod.yaml", func(t *testing.T, res *kube.Result) {
			spec := admitted(t, res)
			c := spec.Containers[0]
			check(t, "env", fmt.Sprint(c.Env), "[{BACKEND_DB_PASSWORD s3cr3t} {BACKEND_backend-username admin} {SECRET_USERNAME admin}]")
			f := spec.Volumes[0].Files
			check(t, "medium", f.Medium, podlife.MediumMemory)
			check(t, "file", fmt.Sprintf("%s %s %o", f.Files[0].Path, f.Files[0].Data, f.Files[0].Mode), "my-group/my-username admin 400")
			check(t, "credentials", fmt.Sprint(spec.PullCredentials), "[{docker.io user pass} {registry.example.com:5000 bob pw}]")
		}},
		{"hooks.json", func(t *testing.T, res *kube.Result) {
			spec := admitted(t, res)
			check(t, "namespace", spec.Namespace, "web")
			check(t, "grace", *spec.TerminationGracePeriod, 60*s)
			c := spec.Containers[0]
			check(t, "pull policy", c.ImagePullPolicy, podlife.PullIfNotPresent)
			check(t, "postStart", describeHook(c.PostStart), "httpGet http://:80/started")
			check(t, "preStop", describeHook(c.PreStop), "sleep 5s")
			check(t, "stop signal", c.StopSignal, syscall.SIGQUIT)
			checkProbe(t, "readiness", c.ReadinessProbe, "httpGet https://127.0.0.1:80/", 0, 10*s, 2*s, 1, 3)
			check(t, "resources", c.Resources, podlife.Resources{CPULimit: 1000, CPURequest: 250, MemoryLimit: 256 << 20, MemoryRequest: 64 << 20})
			check(t, "port", c.Ports[0], podlife.ContainerPort{Name: "http", ContainerPort: 80, HostPort: 8080, Protocol: podlife.ProtocolTCP})
		}},
		{"deployment-service.yaml", func(t *testing.T, res *kube.Result) {
			spec := admitted(t, res)
			check(t, "name", spec.Name, "web")
			check(t, "namespace", spec.Namespace, "shop")
			checkProbe(t, "liveness", spec.Containers[0].LivenessProbe, "tcpSocket :80", 0, 10*s, s, 1, 3)
			check(t, "warnings", fmt.Sprint(paths(res.Warnings)), "[kind spec.replicas spec.template.spec.nodeSelector]")
			for _, w := range res.Warnings {
				check(t, "warning severity", w.Severity, kube.Warning)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			tt.check(t, loadFile(t, kube.Options{}, tt.file))
		})
	}
}

// TestDocsExampleDownwardEnv: the downward API example's node name is Options.NodeName, and
// its pod IP a field podlife resolves when it creates the container.
func TestDocsExampleDownwardEnv(t *testing.T) {
	res, err := kube.LoadFiles(context.Background(), kube.Options{NodeName: "edge-7"}, "testdata/dapi-envars.yaml")
	if err != nil {
		t.Fatal(err)
	}
	check(t, "env", fmt.Sprint(onePod(t, res).Containers[0].Env),
		"[{MY_NODE_NAME edge-7} {MY_POD_NAME dapi-envars-fieldref} {MY_POD_NAMESPACE default} {MY_POD_IP from status.podIP} {MY_POD_SERVICE_ACCOUNT default}]")
}

// TestGolden compares the whole conversion of every testdata manifest with
// testdata/golden; -update rewrites the golden files.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.*")
	if err != nil {
		t.Fatal(err)
	}
	update := flag.Lookup("update").Value.(flag.Getter).Get().(bool)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			var b strings.Builder
			res, err := kube.LoadFiles(context.Background(), kube.Options{NodeName: "node-1"}, f)
			var le *kube.LoadError
			switch {
			case errors.As(err, &le):
				for _, i := range le.Issues {
					fmt.Fprintf(&b, "error: %s\n", i)
				}
				for _, w := range le.Warnings {
					fmt.Fprintf(&b, "warning: %s\n", w)
				}
			case err != nil:
				t.Fatal(err)
			default:
				for _, p := range res.Pods {
					fmt.Fprintf(&b, "pod from %s\n%s", p.Source, dump(p.Spec))
				}
				for _, w := range res.Warnings {
					fmt.Fprintf(&b, "warning: %s\n", w)
				}
			}
			golden := filepath.Join("testdata", "golden", filepath.Base(f)+".txt")
			if update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if b.String() != string(want) {
				t.Errorf("conversion of %s differs from %s:\n%s", f, golden, b.String())
			}
		})
	}
}

// TestManyDocuments: ConfigMaps and Secrets may come in another manifest than the pod, and
// after it; pods come in document order.
func TestManyDocuments(t *testing.T) {
	pod := `
apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers:
  - name: app
    image: busybox:1.36
    envFrom: [{configMapRef: {name: settings}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  activeDeadlineSeconds: 600
  template:
    spec:
      activeDeadlineSeconds: 900
      restartPolicy: OnFailure
      containers: [{name: migrate, image: busybox:1.36, env: [{name: MODE, valueFrom: {configMapKeyRef: {name: settings, key: mode}}}]}]
`
	cm := `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"mode": "fast", "LEVEL": "3"}}
{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "other"}, "data": {"mode": "slow"}}`
	res, err := kube.Load(context.Background(), kube.Options{}, strings.NewReader(pod), strings.NewReader(cm))
	if err != nil {
		t.Fatal(err)
	}
	check(t, "pods", len(res.Pods), 2)
	check(t, "pod 0 env", fmt.Sprint(res.Pods[0].Spec.Containers[0].Env), "[{LEVEL 3} {mode fast}]")
	job := res.Pods[1].Spec
	check(t, "pod 1 source", res.Pods[1].Source.String(), "manifest 0#1 Job/migrate")
	check(t, "pod 1 env", fmt.Sprint(job.Containers[0].Env), "[{MODE fast}]")
	check(t, "job restartPolicy", job.RestartPolicy, podlife.RestartOnFailure)
	check(t, "job deadline", *job.ActiveDeadline, 600*time.Second)
}

// TestNamespace: Options.Namespace is the default namespace, and ConfigMaps are looked up in
// the pod's namespace.
func TestNamespace(t *testing.T) {
	m := `
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: team}
data: {k: v}
---
apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers: [{name: app, image: busybox, env: [{name: K, valueFrom: {configMapKeyRef: {name: cfg, key: k}}}]}]
`
	res, err := loadString(kube.Options{Namespace: "team"}, m)
	if err != nil {
		t.Fatal(err)
	}
	spec := onePod(t, res)
	check(t, "namespace", spec.Namespace, "team")
	check(t, "env", fmt.Sprint(spec.Containers[0].Env), "[{K v}]")
	_, err = loadString(kube.Options{}, m) // the pod is in "default", the ConfigMap is not
	checkSlice(t, "paths", paths(loadErrors(t, err)), []string{"spec.containers[0].env[0].valueFrom.configMapKeyRef.name"})
}

// TestHTTPProbeRequest runs a converted httpGet probe and hook against a server, to check
// the scheme, path, host and headers they send.
func TestHTTPProbeRequest(t *testing.T) {
	got := make(chan string, 2)
	srv := newServer(t, func(method, path, header string) { got <- method + " " + path + " " + header })
	m := fmt.Sprintf(`
apiVersion: v1
kind: Pod
metadata: {name: probe}
spec:
  containers:
  - name: app
    image: busybox
    ports: [{name: web, containerPort: %d}]
    readinessProbe:
      httpGet: {port: web, path: "/ready?x=1", host: 127.0.0.1, httpHeaders: [{name: X-Probe, value: probe}]}
    lifecycle:
      postStart:
        httpGet: {port: %d, path: /started, host: 127.0.0.1, scheme: HTTP, httpHeaders: [{name: X-Probe, value: hook}]}
`, srv, srv)
	res, err := loadString(kube.Options{}, m)
	if err != nil {
		t.Fatal(err)
	}
	c := onePod(t, res).Containers[0]
	ctx := context.Background()
	r, _, err := c.ReadinessProbe.Run(ctx, hook.Target{})
	if err != nil || r != probe.Success {
		t.Fatalf("probe: %v %v", r, err)
	}
	check(t, "probe request", <-got, "GET /ready?x=1 probe")
	if err := c.PostStart.Run(ctx, hook.Target{}); err != nil {
		t.Fatal(err)
	}
	check(t, "hook request", <-got, "GET /started hook")
}
