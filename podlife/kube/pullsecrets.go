package kube

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife"
)

// pullCredentials converts imagePullSecrets to pull credentials, from docker config Secrets
// given with the pod; a Secret named twice counts once. A Secret that is missing, or not a docker config, is a warning: the
// kubelet then pulls without it (FailedToRetrieveImagePullSecret).
func (c *converter) pullCredentials() {
	seen := map[string]bool{}
	for i, ref := range c.src.spec.ImagePullSecrets {
		p := c.specPath.Child("imagePullSecrets").Index(i).Child("name")
		if ref.Name == "" {
			c.is.Field(field.Required(p, ""))
			continue
		}
		if seen[ref.Name] { // its credentials are in already
			continue
		}
		seen[ref.Name] = true
		s := c.objects.secret(ref.Name)
		if s == nil {
			c.is.Warnf(p, "Not found: %q: no such Secret given with the pod: images are pulled without it, as the kubelet does", ref.Name)
			continue
		}
		creds, err := c.shared.dockerCredentials(s)
		if err != nil {
			c.is.Field(field.Invalid(p, ref.Name, err.Error()))
			continue
		}
		if creds == nil {
			c.is.Warnf(p, "Not honoured: Secret %q is not of type %s or %s with its key: images are pulled without it, as the kubelet does",
				ref.Name, corev1.SecretTypeDockerConfigJson, corev1.SecretTypeDockercfg)
			continue
		}
		for _, cr := range creds {
			c.mapPath(fmt.Sprintf("spec.imagePullSecrets[%d]", len(c.out.PullCredentials)), p)
			c.out.PullCredentials = append(c.out.PullCredentials, cr)
		}
	}
}

// dockerAuth is an entry of a docker config.
type dockerAuth struct {
	Username string `json:"username"`
	Password string `json:"password"`
	Auth     string `json:"auth"`
}

// dockerCredentials reads the registries of a kubernetes.io/dockerconfigjson or
// kubernetes.io/dockercfg Secret, sorted by registry; nil if the Secret is of neither type.
func dockerCredentials(s *corev1.Secret) ([]podlife.RegistryCredential, error) {
	data := secretData(s)
	var auths map[string]dockerAuth
	switch {
	case s.Type == corev1.SecretTypeDockerConfigJson && len(data[corev1.DockerConfigJsonKey]) > 0:
		var cfg struct {
			Auths map[string]dockerAuth `json:"auths"`
		}
		if err := json.Unmarshal(data[corev1.DockerConfigJsonKey], &cfg); err != nil {
			return nil, fmt.Errorf("invalid %s: %v", corev1.DockerConfigJsonKey, err)
		}
		auths = cfg.Auths
	case s.Type == corev1.SecretTypeDockercfg && len(data[corev1.DockerConfigKey]) > 0:
		if err := json.Unmarshal(data[corev1.DockerConfigKey], &auths); err != nil {
			return nil, fmt.Errorf("invalid %s: %v", corev1.DockerConfigKey, err)
		}
	default:
		return nil, nil
	}
	creds := []podlife.RegistryCredential{}
	for _, reg := range slices.Sorted(maps.Keys(auths)) {
		a := auths[reg]
		if a.Auth != "" && a.Username == "" && a.Password == "" {
			b, err := base64.StdEncoding.DecodeString(a.Auth)
			if err != nil {
				return nil, fmt.Errorf("registry %q: auth is not base64: %v", reg, err)
			}
			user, pass, ok := strings.Cut(string(b), ":")
			if !ok {
				return nil, fmt.Errorf("registry %q: auth is not user:password", reg)
			}
			a.Username, a.Password = user, pass
		}
		creds = append(creds, podlife.RegistryCredential{Registry: registryHost(reg), Username: a.Username, Password: a.Password})
	}
	return creds, nil
}

// registryHost reduces a docker config key ("https://index.docker.io/v1/", "registry:5000")
// to the registry's host[:port]; Docker Hub's legacy names become "docker.io".
func registryHost(key string) string {
	h := key
	if _, rest, ok := strings.Cut(h, "://"); ok {
		h = rest
	}
	h, _, _ = strings.Cut(h, "/")
	switch h {
	case "index.docker.io", "registry-1.docker.io":
		return "docker.io"
	}
	return h
}
