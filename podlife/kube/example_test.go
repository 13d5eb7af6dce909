package kube_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/podlife/podlife/podlife/kube"
	"github.com/podlife/podlife/probe"
)

// Load a Deployment with the ConfigMap it uses: the pod takes the Deployment's name, the
// ConfigMap feeds its environment, the named port of its probe is resolved and the API's
// defaults are applied. Scheduling fields are dropped with a warning.
func ExampleLoad() {
	manifest := `
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  GREETING: hello
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      nodeSelector: {disktype: ssd}
      containers:
      - name: web
        image: nginx:1.27
        envFrom:
        - configMapRef: {name: settings}
        command: ["sh", "-c", "echo $(GREETING) && exec nginx -g 'daemon off;'"]
        ports:
        - {name: http, containerPort: 80}
        readinessProbe:
          httpGet: {path: /healthz, port: http}
`
	res, err := kube.Load(context.Background(), kube.Options{}, strings.NewReader(manifest))
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range res.Pods {
		spec := p.Spec.WithDefaults() // the defaults podlife applies when it runs the spec
		c := spec.Containers[0]
		fmt.Println(p.Source, "->", spec.Name, spec.RestartPolicy, *spec.TerminationGracePeriod)
		fmt.Println(c.Image, c.ImagePullPolicy, c.Env, c.Command[2])
		fmt.Println(probe.Describe(c.ReadinessProbe.Prober), c.ReadinessProbe.Period)
	}
	for _, w := range res.Warnings {
		fmt.Println(w)
	}
	// Output:
	// manifest 0#1 Deployment/web -> web Always 30s
	// nginx:1.27 IfNotPresent [{GREETING hello}] echo hello && exec nginx -g 'daemon off;'
	// httpGet http://:80/healthz 10s
	// manifest 0#1 Deployment/web: spec.template.spec.nodeSelector: Not honoured: scheduling: there is one host (warning)
}

// A rejected manifest lists every field podlife cannot honour, by its path.
func ExampleLoadError() {
	manifest := `
apiVersion: v1
kind: Pod
metadata:
  name: app
spec:
  hostUsers: false
  containers:
  - name: app
    image: busybox:1.36
    env:
    - name: POD_LABELS
      valueFrom:
        fieldRef: {fieldPath: metadata.labels}
    volumeMounts:
    - {name: data, mountPath: /data, mountPropagation: HostToContainer}
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: data}
`
	_, err := kube.Load(context.Background(), kube.Options{}, strings.NewReader(manifest))
	var le *kube.LoadError
	if errors.As(err, &le) {
		for _, is := range le.Issues {
			fmt.Printf("%s: %s\n", is.Path, is.Message)
		}
	}
	// Output:
	// spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"
	// spec.containers[0].volumeMounts[0].mountPropagation: Unsupported value: "HostToContainer": mounts are private (supported: "None")
	// spec.hostUsers: Unsupported value: false: user namespaces are not supported (supported: true)
	// spec.volumes[0].persistentVolumeClaim: Forbidden: not supported by podlife: volume type not supported (emptyDir, hostPath, configMap, secret, downwardAPI, projected and image are)
}

// Strict mode turns the warnings into errors: the manifest loads only if podlife honours
// everything it says.
func ExampleOptions_strict() {
	manifest := `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "app"},
  "spec": {"tolerations": [{"operator": "Exists"}], "containers": [{"name": "app", "image": "busybox", "tty": true}]}}`
	_, err := kube.Load(context.Background(), kube.Options{Strict: true}, strings.NewReader(manifest))
	fmt.Println(err)
	// Output:
	// kube: 2 errors:
	//	manifest 0#0 Pod/app: spec.containers[0].tty: Not honoured: no TTY is allocated
	//	manifest 0#0 Pod/app: spec.tolerations: Not honoured: scheduling: there is one host
}

// Convert a Pod built with the k8s.io/api types.
func ExampleConvert() {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "worker", Labels: map[string]string{"app": "worker"}},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyOnFailure,
			Containers: []corev1.Container{{
				Name:  "worker",
				Image: "busybox:latest",
				Env: []corev1.EnvVar{
					{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
					{Name: "QUEUE", Value: "$(POD)-jobs"},
				},
				Args: []string{"--queue=$(QUEUE)", "--escaped=$$(QUEUE)"},
				LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
					TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(9000)},
				}},
			}},
		},
	}
	spec, warnings, err := kube.Convert(pod, kube.Objects{}, kube.Options{})
	if err != nil {
		log.Fatal(err)
	}
	spec = spec.WithDefaults() // the defaults podlife applies when it runs the spec
	c := spec.Containers[0]
	fmt.Println(spec.Name, spec.Namespace, spec.RestartPolicy, len(warnings))
	fmt.Println(c.ImagePullPolicy, c.Env, c.Args)
	fmt.Println(probe.Describe(c.LivenessProbe.Prober), c.LivenessProbe.FailureThreshold)
	// Output:
	// worker default OnFailure 0
	// Always [{POD worker} {QUEUE worker-jobs}] [--queue=worker-jobs --escaped=$(QUEUE)]
	// tcpSocket :9000 3
}
