package podlifetest

import (
	"context"
	"fmt"
	"strings"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/remotes"
	"github.com/containerd/containerd/v2/core/remotes/docker"
)

// Resolver returns a resolver for this registry only (plain HTTP, no
// proxy), authenticating with creds unless creds is nil. Use it with
// client.WithResolver to pull from or push to the registry; other hosts
// are refused.
func (r *Registry) Resolver(creds *Credentials) remotes.Resolver {
	hc := loopbackHTTPClient()
	authOpts := []docker.AuthorizerOpt{docker.WithAuthClient(hc)}
	if creds != nil {
		authOpts = append(authOpts, docker.WithAuthCreds(func(host string) (string, string, error) {
			if host != r.addr {
				return "", "", nil
			}
			return creds.Username, creds.Password, nil
		}))
	}
	hosts := docker.ConfigureDefaultRegistries(
		docker.WithPlainHTTP(docker.MatchAllHosts),
		docker.WithClient(hc),
		docker.WithAuthorizer(docker.NewDockerAuthorizer(authOpts...)),
	)
	return docker.NewResolver(docker.ResolverOptions{
		Hosts: func(host string) ([]docker.RegistryHost, error) {
			if host != r.addr {
				return nil, fmt.Errorf("podlifetest: registry %s refuses to resolve host %q", r.addr, host)
			}
			return hosts(host)
		},
	})
}

// Push pushes the image localRef from c's image store (ctx must carry its
// namespace) to this registry as remoteRef, with the registry's
// credentials. remoteRef is a name within the registry, such as
// "podlife/busybox:1", or a reference that already starts with Addr().
func (r *Registry) Push(ctx context.Context, c *client.Client, localRef, remoteRef string) error {
	if !strings.HasPrefix(remoteRef, r.addr+"/") {
		remoteRef = r.Ref(remoteRef)
	}
	img, err := c.ImageService().Get(ctx, localRef)
	if err != nil {
		return fmt.Errorf("podlifetest: push %s: %w", localRef, err)
	}
	if err := c.Push(ctx, remoteRef, img.Target, client.WithResolver(r.Resolver(r.creds))); err != nil {
		return fmt.Errorf("podlifetest: push %s to %s: %w", localRef, remoteRef, err)
	}
	return nil
}
