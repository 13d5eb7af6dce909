package podlifetest_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/podlife/podlifetest"
)

// startRegistry starts a registry for the test, closed on cleanup.
func startRegistry(t *testing.T, creds *podlifetest.Credentials) *podlifetest.Registry {
	t.Helper()
	requireRoot(t)
	requireBinary(t, "docker-registry")
	if creds != nil {
		requireBinary(t, "htpasswd")
	}
	dir, err := os.MkdirTemp("", "plt-reg-")
	if err != nil {
		t.Fatal(err)
	}
	r, err := podlifetest.StartRegistry(t.Context(), dir, creds)
	if err != nil {
		_ = os.RemoveAll(dir)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("registry dir left after Close: %v", err)
		}
	})
	return r
}

func TestRegistryPushPull(t *testing.T) {
	creds := &podlifetest.Credentials{Username: "plt", Password: "s3cret pass"}
	open := startRegistry(t, nil)
	auth := startRegistry(t, creds)
	if !strings.HasPrefix(open.Addr(), "127.0.0.1:") || open.Addr() == auth.Addr() {
		t.Fatalf("registry addresses %s and %s", open.Addr(), auth.Addr())
	}

	for _, v := range containerds(t) {
		t.Run(v.name, func(t *testing.T) {
			ctrd := startContainerd(t, v.binary)
			ctx := namespaces.WithNamespace(t.Context(), testNamespace)
			img, err := podlifetest.ImportBusybox(ctx, ctrd.Client, testRef)
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				name  string
				r     *podlifetest.Registry
				creds *podlifetest.Credentials
			}{{"open", open, nil}, {"auth", auth, creds}} {
				t.Run(tc.name, func(t *testing.T) {
					remote := tc.r.Ref("podlife/busybox-" + v.name + ":1")
					if err := tc.r.Push(ctx, ctrd.Client, testRef, remote); err != nil {
						t.Fatal(err)
					}
					if tc.creds != nil {
						_, err := ctrd.Client.Pull(ctx, remote, client.WithResolver(tc.r.Resolver(nil)))
						if err == nil || !strings.Contains(err.Error(), "401") && !strings.Contains(strings.ToLower(err.Error()), "unauthorized") {
							t.Errorf("pull without credentials = %v, want a 401 error", err)
						}
						t.Logf("pull without credentials: %v", err)
						wrong := &podlifetest.Credentials{Username: tc.creds.Username, Password: "wrong"}
						if _, err := ctrd.Client.Pull(ctx, remote, client.WithResolver(tc.r.Resolver(wrong))); err == nil {
							t.Error("pull with a wrong password succeeded")
						}
					}
					pulled, err := ctrd.Client.Pull(ctx, remote, client.WithResolver(tc.r.Resolver(tc.creds)), client.WithPullUnpack)
					if err != nil {
						t.Fatal(err)
					}
					if pulled.Target().Digest != img.Target().Digest {
						t.Errorf("pulled %s, pushed %s", pulled.Target().Digest, img.Target().Digest)
					}
					id := "plt-pull-" + v.name + "-" + tc.name
					if out, _ := runTask(t, ctrd, pulled, id, "echo", "pulled"); out != "pulled\n" {
						t.Errorf("output %q", out)
					}
					if err := ctrd.Client.ImageService().Delete(ctx, remote); err != nil {
						t.Fatal(err)
					}
				})
			}
			leaks, err := podlifetest.ContainerdLeaks(ctx, ctrd.Client, testNamespace, testRef)
			assertNoLeaks(t, leaks, err)
		})
	}
}

func TestRegistryRefusesOtherHosts(t *testing.T) {
	r := startRegistry(t, nil)
	ctrd := startContainerd(t, containerds(t)[0].binary)
	ctx := namespaces.WithNamespace(t.Context(), testNamespace)
	_, err := ctrd.Client.Pull(ctx, "docker.io/library/busybox:latest", client.WithResolver(r.Resolver(nil)))
	if err == nil || !strings.Contains(err.Error(), "refuses") {
		t.Errorf("pull from another host = %v, want a refusal", err)
	}
}
