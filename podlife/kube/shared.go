package kube

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube/internal/expand"
)

// shared is what the conversions of one Load, LoadFiles or Convert share: the budget of
// $(VAR) expansion, and the data of ConfigMaps and Secrets converted once, so that a manifest
// that refers to a large object many times (envFrom, volumes, imagePullSecrets in many
// containers or pods) costs its size once, not once per reference. The specs share that
// data: files of the same object have the same bytes.
type shared struct {
	// budget is what $(VAR) expansion may still produce (MaxExpansionTotal).
	budget *expand.Budget

	configMapBytes map[*corev1.ConfigMap]map[string][]byte
	secretBytes    map[*corev1.Secret]map[string][]byte
	secretStrings  map[*corev1.Secret]map[string]string
	credentials    map[*corev1.Secret]credentials

	// seLinuxEnabled tells whether the host runs SELinux (hostSELinux; tests replace it).
	seLinuxEnabled func() bool
}

// credentials are the registries of a docker config Secret, or why they could not be read.
type credentials struct {
	list []podlife.RegistryCredential
	err  error
}

func newShared() *shared {
	return &shared{
		budget:         expand.NewBudget(),
		configMapBytes: map[*corev1.ConfigMap]map[string][]byte{},
		secretBytes:    map[*corev1.Secret]map[string][]byte{},
		secretStrings:  map[*corev1.Secret]map[string]string{},
		credentials:    map[*corev1.Secret]credentials{},
		seLinuxEnabled: hostSELinux,
	}
}

// configMapData is configMapData(cm), once.
func (s *shared) configMapData(cm *corev1.ConfigMap) map[string][]byte {
	return once(s.configMapBytes, cm, configMapData)
}

// secretData is secretData(sec), once.
func (s *shared) secretData(sec *corev1.Secret) map[string][]byte {
	return once(s.secretBytes, sec, secretData)
}

// secretStringData is the data of a Secret as strings, for env, once.
func (s *shared) secretStringData(sec *corev1.Secret) map[string]string {
	return once(s.secretStrings, sec, func(sec *corev1.Secret) map[string]string {
		data := s.secretData(sec)
		out := make(map[string]string, len(data))
		for k, v := range data {
			out[k] = string(v)
		}
		return out
	})
}

// dockerCredentials is dockerCredentials(sec), once.
func (s *shared) dockerCredentials(sec *corev1.Secret) ([]podlife.RegistryCredential, error) {
	c := once(s.credentials, sec, func(sec *corev1.Secret) credentials {
		list, err := dockerCredentials(sec)
		return credentials{list: list, err: err}
	})
	return c.list, c.err
}

// once returns m[k], computing it with f the first time.
func once[K comparable, V any](m map[K]V, k K, f func(K) V) V {
	v, ok := m[k]
	if !ok {
		v = f(k)
		m[k] = v
	}
	return v
}
