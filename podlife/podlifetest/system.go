package podlifetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"
)

// KeepSystemContainerd fails t at its end if the namespaces or containers of the containerd
// answering at address (the system socket, podlife.DefaultAddress) changed during it: for a
// test that must only use a private containerd beside a system one. It skips the check, with
// a log line, if that daemon does not answer.
func KeepSystemContainerd(t testing.TB, address string) {
	t.Helper()
	before, err := systemView(address)
	if err != nil {
		t.Logf("a socket exists at %s, but no containerd answers there (%v): nothing to check", address, err)
		return
	}
	t.Cleanup(func() {
		after, err := systemView(address)
		if err != nil {
			t.Errorf("the system containerd at %s: %v", address, err)
			return
		}
		if !slices.Equal(before, after) {
			t.Errorf("the system containerd changed during the test:\nbefore %q\nafter  %q", before, after)
		}
	})
}

// systemView lists the namespaces of the containerd at address and their containers ("ns",
// "ns/id").
func systemView(address string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.New(address, client.WithTimeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	nss, err := c.NamespaceService().List(ctx)
	if err != nil {
		return nil, err
	}
	var view []string
	for _, ns := range nss {
		view = append(view, ns)
		cs, err := c.Containers(namespaces.WithNamespace(ctx, ns))
		if err != nil {
			return nil, err
		}
		for _, ctr := range cs {
			view = append(view, ns+"/"+ctr.ID())
		}
	}
	slices.Sort(view)
	return view, nil
}
