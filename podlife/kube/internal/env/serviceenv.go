package env

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// ServiceVars returns the variables the kubelet sets in every container of a pod of
// namespace for the Services of the cluster: see kube.ServiceEnv.
func ServiceVars(namespace string, enableServiceLinks *bool, services []*corev1.Service) map[string]string {
	links := enableServiceLinks == nil || *enableServiceLinks
	chosen := map[string]*corev1.Service{}
	for _, s := range services {
		if s == nil || !serviceIPSet(s) || len(s.Spec.Ports) == 0 {
			continue
		}
		switch {
		case s.Namespace == "default" && s.Name == "kubernetes":
			if _, ok := chosen[s.Name]; !ok {
				chosen[s.Name] = s
			}
		case s.Namespace == namespace && links:
			chosen[s.Name] = s
		}
	}
	out := map[string]string{}
	for _, s := range chosen {
		serviceVars(s, out)
	}
	return out
}

// serviceIPSet is the kubelet's IsServiceIPSet: a cluster IP that is neither empty nor None.
func serviceIPSet(s *corev1.Service) bool {
	return s.Spec.ClusterIP != "" && s.Spec.ClusterIP != corev1.ClusterIPNone
}

// serviceVars adds the variables of one Service to out (the kubelet's envvars.FromServices).
func serviceVars(s *corev1.Service, out map[string]string) {
	prefix := strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_"))
	ip := s.Spec.ClusterIP
	out[prefix+"_SERVICE_HOST"] = ip
	out[prefix+"_SERVICE_PORT"] = strconv.Itoa(int(s.Spec.Ports[0].Port))
	for i, sp := range s.Spec.Ports {
		if sp.Name != "" {
			out[prefix+"_SERVICE_PORT_"+strings.ToUpper(strings.ReplaceAll(sp.Name, "-", "_"))] = strconv.Itoa(int(sp.Port))
		}
		proto := string(sp.Protocol)
		if proto == "" {
			proto = string(corev1.ProtocolTCP)
		}
		url := fmt.Sprintf("%s://%s", strings.ToLower(proto), net.JoinHostPort(ip, strconv.Itoa(int(sp.Port))))
		if i == 0 {
			out[prefix+"_PORT"] = url
		}
		pp := fmt.Sprintf("%s_PORT_%d_%s", prefix, sp.Port, strings.ToUpper(proto))
		out[pp] = url
		out[pp+"_PROTO"] = strings.ToLower(proto)
		out[pp+"_PORT"] = strconv.Itoa(int(sp.Port))
		out[pp+"_ADDR"] = ip
	}
}
