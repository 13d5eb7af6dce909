package kube

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
)

// Objects are the ConfigMaps and Secrets a pod may refer to (configMap and secret volumes,
// env valueFrom, envFrom, imagePullSecrets), keyed by metadata.name. They are taken to be in
// the pod's namespace. Load gathers them from the documents it is given, as Podman's kube
// play does.
type Objects struct {
	ConfigMaps map[string]*corev1.ConfigMap
	Secrets    map[string]*corev1.Secret
}

// configMap returns the named ConfigMap, or nil.
func (o Objects) configMap(name string) *corev1.ConfigMap { return o.ConfigMaps[name] }

// secret returns the named Secret, or nil.
func (o Objects) secret(name string) *corev1.Secret { return o.Secrets[name] }

// configMapData returns a ConfigMap's keys as bytes: data and binaryData together.
func configMapData(cm *corev1.ConfigMap) map[string][]byte {
	out := make(map[string][]byte, len(cm.Data)+len(cm.BinaryData))
	for k, v := range cm.Data {
		out[k] = []byte(v)
	}
	maps.Copy(out, cm.BinaryData)
	return out
}

// secretData returns a Secret's keys: data, overridden by stringData as the API server
// merges them.
func secretData(s *corev1.Secret) map[string][]byte {
	out := make(map[string][]byte, len(s.Data)+len(s.StringData))
	maps.Copy(out, s.Data)
	for k, v := range s.StringData {
		out[k] = []byte(v)
	}
	return out
}
