package kube_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlife/podlife/podlife/kube"
)

func service(ns, name, ip string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{ClusterIP: ip, Ports: ports}}
}

// TestServiceEnv: the variables of the kubelet's getServiceEnvVarMap and envvars.FromServices
// (the spec "Pods should contain environment variables for services"): the pod's namespace's
// Services with a cluster IP, the default namespace's kubernetes Service always.
func TestServiceEnv(t *testing.T) {
	services := []*corev1.Service{
		service("default", "kubernetes", "10.0.0.1", corev1.ServicePort{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP}),
		service("ns1", "fooservice", "10.0.0.7", corev1.ServicePort{Port: 8765}),
		service("ns1", "dns-udp", "10.0.0.9", corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP},
			corev1.ServicePort{Name: "metrics-http", Port: 9153, Protocol: corev1.ProtocolTCP}),
		service("ns1", "headless", "None", corev1.ServicePort{Port: 80}),
		service("ns2", "other", "10.0.0.8", corev1.ServicePort{Port: 80}),
		service("default", "web", "10.0.0.10", corev1.ServicePort{Port: 80}),
	}
	got := kube.ServiceEnv("ns1", nil, services)
	want := map[string]string{
		"KUBERNETES_SERVICE_HOST":           "10.0.0.1",
		"KUBERNETES_SERVICE_PORT":           "443",
		"KUBERNETES_SERVICE_PORT_HTTPS":     "443",
		"KUBERNETES_PORT":                   "tcp://10.0.0.1:443",
		"KUBERNETES_PORT_443_TCP":           "tcp://10.0.0.1:443",
		"KUBERNETES_PORT_443_TCP_PROTO":     "tcp",
		"KUBERNETES_PORT_443_TCP_PORT":      "443",
		"KUBERNETES_PORT_443_TCP_ADDR":      "10.0.0.1",
		"FOOSERVICE_SERVICE_HOST":           "10.0.0.7",
		"FOOSERVICE_SERVICE_PORT":           "8765",
		"FOOSERVICE_PORT":                   "tcp://10.0.0.7:8765",
		"FOOSERVICE_PORT_8765_TCP":          "tcp://10.0.0.7:8765",
		"FOOSERVICE_PORT_8765_TCP_PROTO":    "tcp",
		"FOOSERVICE_PORT_8765_TCP_PORT":     "8765",
		"FOOSERVICE_PORT_8765_TCP_ADDR":     "10.0.0.7",
		"DNS_UDP_SERVICE_HOST":              "10.0.0.9",
		"DNS_UDP_SERVICE_PORT":              "53",
		"DNS_UDP_SERVICE_PORT_DNS":          "53",
		"DNS_UDP_SERVICE_PORT_METRICS_HTTP": "9153",
		"DNS_UDP_PORT":                      "udp://10.0.0.9:53",
		"DNS_UDP_PORT_53_UDP":               "udp://10.0.0.9:53",
		"DNS_UDP_PORT_53_UDP_PROTO":         "udp",
		"DNS_UDP_PORT_53_UDP_PORT":          "53",
		"DNS_UDP_PORT_53_UDP_ADDR":          "10.0.0.9",
		"DNS_UDP_PORT_9153_TCP":             "tcp://10.0.0.9:9153",
		"DNS_UDP_PORT_9153_TCP_PROTO":       "tcp",
		"DNS_UDP_PORT_9153_TCP_PORT":        "9153",
		"DNS_UDP_PORT_9153_TCP_ADDR":        "10.0.0.9",
	}
	if !maps.Equal(got, want) {
		t.Errorf("ServiceEnv(ns1):\n got %v\nwant %v", got, want)
	}
	off := false
	got = kube.ServiceEnv("ns1", &off, services)
	if keys := slices.Sorted(maps.Keys(got)); len(keys) != 8 || got["KUBERNETES_SERVICE_HOST"] != "10.0.0.1" || got["FOOSERVICE_SERVICE_HOST"] != "" {
		t.Errorf("enableServiceLinks false: want the kubernetes Service's 8 variables only, got %v", keys)
	}
	if got := kube.ServiceEnv("default", nil, services); got["WEB_SERVICE_HOST"] != "10.0.0.10" || got["KUBERNETES_SERVICE_HOST"] != "10.0.0.1" {
		t.Errorf("ServiceEnv(default): %v", got)
	}
}

// TestConvertServiceEnv: Options.ServiceEnv comes after the container's own variables, which
// win, and $(VAR) references to it expand in env values, command and args, as on a kubelet.
func TestConvertServiceEnv(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "svc", Namespace: "ns1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "c", Image: "busybox:1.36",
			Command: []string{"sh", "-c", "echo $(FOO_SERVICE_HOST)"},
			Args:    []string{"$(FOO_SERVICE_PORT)"},
			Env: []corev1.EnvVar{
				{Name: "URL", Value: "http://$(FOO_SERVICE_HOST):$(FOO_SERVICE_PORT)/"},
				{Name: "FOO_SERVICE_PORT", Value: "9999"},
			},
		}}},
	}
	env := map[string]string{"FOO_SERVICE_HOST": "10.0.0.7", "FOO_SERVICE_PORT": "8765", "A_SERVICE_HOST": "10.0.0.2"}
	spec, _, err := kube.Convert(pod, kube.Objects{}, kube.Options{ServiceEnv: env})
	if err != nil {
		t.Fatal(err)
	}
	c := spec.Containers[0]
	check(t, "env", fmt.Sprint(c.Env), "[{URL http://10.0.0.7:8765/} {FOO_SERVICE_PORT 9999} {A_SERVICE_HOST 10.0.0.2} {FOO_SERVICE_HOST 10.0.0.7}]")
	check(t, "command", fmt.Sprint(c.Command), "[sh -c echo 10.0.0.7]")
	check(t, "args", fmt.Sprint(c.Args), "[9999]")

	spec, _, err = kube.Convert(pod, kube.Objects{}, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "env without ServiceEnv", fmt.Sprint(spec.Containers[0].Env), "[{URL http://$(FOO_SERVICE_HOST):$(FOO_SERVICE_PORT)/} {FOO_SERVICE_PORT 9999}]")
}
