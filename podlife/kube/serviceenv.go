package kube

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/podlife/podlife/podlife/kube/internal/env"
)

// ServiceEnv returns the variables the kubelet sets in every container of a pod of namespace
// for the Services of the cluster (its getServiceEnvVarMap): for the `kubernetes` Service of
// the default namespace always, and for every Service of namespace when enableServiceLinks
// (a nil pointer, as the API server defaults it, is true). Services without a cluster IP
// (headless, or none allocated) give none. For a Service foo-bar with cluster IP 10.0.0.5 and
// a first port 80/TCP named http: FOO_BAR_SERVICE_HOST=10.0.0.5, FOO_BAR_SERVICE_PORT=80,
// FOO_BAR_SERVICE_PORT_HTTP=80, and Docker's link variables FOO_BAR_PORT=tcp://10.0.0.5:80,
// FOO_BAR_PORT_80_TCP=tcp://10.0.0.5:80, FOO_BAR_PORT_80_TCP_PROTO=tcp,
// FOO_BAR_PORT_80_TCP_PORT=80, FOO_BAR_PORT_80_TCP_ADDR=10.0.0.5.
//
// Give the result as Options.ServiceEnv.
func ServiceEnv(namespace string, enableServiceLinks *bool, services []*corev1.Service) map[string]string {
	return env.ServiceVars(namespace, enableServiceLinks, services)
}
