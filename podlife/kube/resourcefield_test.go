package kube_test

import (
	"runtime"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
)

// resourcePod has a container "c" with limits and requests, a container "free" with none,
// an init container "setup", env variables for each resource field, and a downwardAPI
// volume (direct and projected) naming containers.
const resourcePod = `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
  - name: setup
    image: busybox:1.36
    env:
    - {name: OWN_CPU, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}
    - {name: SELF_CPU, valueFrom: {resourceFieldRef: {containerName: setup, resource: limits.cpu}}}
    - {name: C_MEM, valueFrom: {resourceFieldRef: {containerName: c, resource: limits.memory, divisor: 1Mi}}}
  containers:
  - name: c
    image: busybox:1.36
    resources:
      limits: {cpu: 500m, memory: 64Mi, ephemeral-storage: 1Gi}
      requests: {cpu: 250m, memory: 32Mi}
    env:
    - {name: LIM_CPU, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}
    - {name: LIM_CPU_M, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 1m}}}
    - {name: REQ_CPU_M, valueFrom: {resourceFieldRef: {resource: requests.cpu, divisor: 1m}}}
    - {name: LIM_MEM, valueFrom: {resourceFieldRef: {resource: limits.memory}}}
    - {name: LIM_MEM_MI, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}
    - {name: REQ_MEM_M, valueFrom: {resourceFieldRef: {resource: requests.memory, divisor: 1M}}}
    - {name: LIM_EPH_GI, valueFrom: {resourceFieldRef: {resource: limits.ephemeral-storage, divisor: 1Gi}}}
    - {name: REQ_EPH, valueFrom: {resourceFieldRef: {resource: requests.ephemeral-storage}}}
    - {name: FREE_CPU, valueFrom: {resourceFieldRef: {containerName: free, resource: limits.cpu}}}
  - name: free
    image: busybox:1.36
    env:
    - {name: LIM_CPU, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}
    - {name: LIM_MEM_MI, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}
    - {name: REQ_CPU, valueFrom: {resourceFieldRef: {resource: requests.cpu}}}
    - {name: REQ_MEM, valueFrom: {resourceFieldRef: {resource: requests.memory}}}
    - {name: SETUP_CPU, valueFrom: {resourceFieldRef: {containerName: setup, resource: limits.cpu}}}
  volumes:
  - name: info
    downwardAPI:
      items:
      - {path: mem_limit, resourceFieldRef: {containerName: c, resource: limits.memory, divisor: 1Mi}}
      - {path: cpu_request, resourceFieldRef: {containerName: c, resource: requests.cpu, divisor: 1m}}
      - {path: free_mem, resourceFieldRef: {containerName: free, resource: limits.memory}}
      - {path: setup_cpu, resourceFieldRef: {containerName: setup, resource: limits.cpu, divisor: 1m}}
  - name: proj
    projected:
      sources:
      - downwardAPI:
          items:
          - {path: cpu_limit, resourceFieldRef: {containerName: c, resource: limits.cpu, divisor: 1m}}
`

// TestResourceFieldRef: env variables and downwardAPI files from resourceFieldRef have the
// kubelet's values: the quantity divided by the divisor, rounded up; a missing request is
// the limit; a missing limit is the node allocatable.
func TestResourceFieldRef(t *testing.T) {
	node := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("3"),
		corev1.ResourceMemory:           resource.MustParse("2Gi"),
		corev1.ResourceEphemeralStorage: resource.MustParse("10Gi"),
	}
	res, err := loadString(kube.Options{Allocatable: node}, resourcePod)
	if err != nil {
		t.Fatal(err)
	}
	spec := onePod(t, res)
	check := func(what string, got map[string]string, want map[string]string) {
		t.Helper()
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s %s = %q, want %q", what, k, got[k], w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: got %v, want %v", what, got, want)
		}
	}
	check("setup env", envMap(spec.InitContainers[0].Env), map[string]string{
		"OWN_CPU":  "3", // its own limits are defaulted
		"SELF_CPU": "0", // not when named: the kubelet defaults only regular containers' then
		"C_MEM":    "64",
	})
	check("c env", envMap(spec.Containers[0].Env), map[string]string{
		"LIM_CPU":    "1", // 500m rounded up
		"LIM_CPU_M":  "500",
		"REQ_CPU_M":  "250",
		"LIM_MEM":    strconv.Itoa(64 << 20),
		"LIM_MEM_MI": "64",
		"REQ_MEM_M":  "34", // 33554432 / 1e6 rounded up
		"LIM_EPH_GI": "1",
		"REQ_EPH":    strconv.Itoa(1 << 30), // the request defaults to the limit
		"FREE_CPU":   "3",
	})
	check("free env", envMap(spec.Containers[1].Env), map[string]string{
		"LIM_CPU":    "3",
		"LIM_MEM_MI": "2048",
		"REQ_CPU":    "0",
		"REQ_MEM":    "0",
		"SETUP_CPU":  "0", // the kubelet defaults only regular containers' limits in env
	})
	check("downwardAPI", volumeFiles(t, spec, "info"), map[string]string{
		"mem_limit":   "64",
		"cpu_request": "250",
		"free_mem":    strconv.Itoa(2 << 30),
		"setup_cpu":   "3000", // volumes default every container's limits
	})
	check("projected", volumeFiles(t, spec, "proj"), map[string]string{"cpu_limit": "500"})
}

// TestResourceFieldRefHost: without Options.Allocatable, a missing limit is this host's CPUs
// and memory.
func TestResourceFieldRefHost(t *testing.T) {
	res, err := loadString(kube.Options{}, pod("", "    env:\n"+
		"    - {name: CPU, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}\n"+
		"    - {name: MEM, valueFrom: {resourceFieldRef: {resource: limits.memory}}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	env := envMap(onePod(t, res).Containers[0].Env)
	if want := strconv.Itoa(runtime.NumCPU()); env["CPU"] != want {
		t.Errorf("CPU = %q, want %q", env["CPU"], want)
	}
	if mem, err := strconv.ParseInt(env["MEM"], 10, 64); err != nil || mem < 64<<20 {
		t.Errorf("MEM = %q, want the host's memory in bytes", env["MEM"])
	}
}

// TestResourceFieldRefInvalid: the API server's rules, at their paths.
func TestResourceFieldRefInvalid(t *testing.T) {
	vol := func(item string) string {
		return pod("  volumes: [{name: v, downwardAPI: {items: ["+item+"]}}]\n", "")
	}
	env := func(ref string) string {
		return pod("", "    env: [{name: X, valueFrom: {resourceFieldRef: "+ref+"}}]\n")
	}
	tests := []struct {
		name, manifest, path string
	}{
		{"cpu divisor", env("{resource: limits.cpu, divisor: 1k}"), "spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor"},
		{"memory divisor", env("{resource: requests.memory, divisor: 2Mi}"), "spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor"},
		{"unknown resource", env("{resource: limits.gpu}"), "spec.containers[0].env[0].valueFrom.resourceFieldRef.resource"},
		{"hugepages", env("{resource: limits.hugepages-2Mi}"), "spec.containers[0].env[0].valueFrom.resourceFieldRef.resource"},
		{"no resource", env("{divisor: 1}"), "spec.containers[0].env[0].valueFrom.resourceFieldRef.resource"},
		{"unknown container", env("{containerName: nope, resource: limits.cpu}"), "spec.containers[0].env[0].valueFrom.resourceFieldRef.containerName"},
		{"volume without containerName", vol("{path: a, resourceFieldRef: {resource: limits.cpu}}"), "spec.volumes[0].downwardAPI.items[0].resourceFieldRef.containerName"},
		{"volume both refs", vol("{path: a, fieldRef: {fieldPath: metadata.name}, resourceFieldRef: {containerName: c, resource: limits.cpu}}"), "spec.volumes[0].downwardAPI.items[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadString(kube.Options{}, tt.manifest)
			if err == nil {
				t.Fatal("loaded, want an error")
			}
			if got := paths(loadErrors(t, err)); len(got) != 1 || got[0] != tt.path {
				t.Errorf("error paths %v, want [%s]", got, tt.path)
			}
		})
	}
}

func envMap(env []podlife.EnvVar) map[string]string {
	m := map[string]string{}
	for _, e := range env {
		m[e.Name] = e.Value
	}
	return m
}

// volumeFiles returns the files of the pod's files volume of that name.
func volumeFiles(t *testing.T, spec podlife.PodSpec, name string) map[string]string {
	t.Helper()
	for _, v := range spec.Volumes {
		if v.Name == name && v.Files != nil {
			m := map[string]string{}
			for _, f := range v.Files.Files {
				m[f.Path] = string(f.Data)
			}
			return m
		}
	}
	t.Fatalf("no files volume %q in %+v", name, spec.Volumes)
	return nil
}

// TestResourceFieldRefPodLimits: with pod-level limits, a container without a limit reads the
// pod's (the kubelet's defaultPodLimitsForDownwardAPI), and the pod's resources convert.
func TestResourceFieldRefPodLimits(t *testing.T) {
	node := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourceMemory: resource.MustParse("2Gi")}
	res, err := loadString(kube.Options{Allocatable: node}, pod("  resources: {limits: {memory: 256Mi}, requests: {cpu: 300m}}\n",
		"    env:\n"+
			"    - {name: MEM, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}\n"+
			"    - {name: CPU, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	spec := onePod(t, res)
	if env := envMap(spec.Containers[0].Env); env["MEM"] != "256" || env["CPU"] != "3" {
		t.Errorf("env %v, want MEM=256 (the pod's limit) and CPU=3 (the node's: the pod sets no cpu limit)", env)
	}
	if want := (podlife.Resources{MemoryLimit: 256 << 20, CPURequest: 300}); spec.Resources != want {
		t.Errorf("pod resources %+v, want %+v", spec.Resources, want)
	}
}
