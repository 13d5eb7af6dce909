package tasks

import "testing"

func TestRegistryHost(t *testing.T) {
	for in, want := range map[string]string{
		"docker.io":                    "registry-1.docker.io",
		"https://index.docker.io/v1/":  "registry-1.docker.io",
		"127.0.0.1:5000":               "127.0.0.1:5000",
		"http://registry.example:5000": "registry.example:5000",
	} {
		if got := registryHost(in); got != want {
			t.Errorf("registryHost(%q) = %q, want %q", in, got, want)
		}
	}
}
