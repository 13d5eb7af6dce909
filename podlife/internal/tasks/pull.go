package tasks

import (
	"context"
	"strings"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ctrd"
)

// pull pulls and unpacks ref with creds (or the Credentials callback).
func (t Containerd) pull(ctx context.Context, ref string, creds []api.RegistryCredential) (ctrd.Image, error) {
	return t.Client.Pull(ctx, ref, func(host string) (string, string, error) {
		for _, c := range creds {
			if registryHost(c.Registry) == host {
				return c.Username, c.Password, nil
			}
		}
		if t.Credentials != nil {
			return t.Credentials(ctx, host)
		}
		return "", "", nil
	})
}

// registryHost is the host containerd asks credentials for: "docker.io" (and its aliases, as
// docker config files write them) is served by registry-1.docker.io.
func registryHost(registry string) string {
	r := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(registry, "https://"), "http://"), "/")
	r, _, _ = strings.Cut(r, "/")
	switch r {
	case "docker.io", "index.docker.io":
		return "registry-1.docker.io"
	}
	return r
}
