package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/podlife"
)

// keepSystemContainerd fails t at its end if the namespaces or containers of the containerd
// answering at the system socket changed during it (a test that must only use a private
// containerd beside a system one). It skips the check, with a log line, if that daemon does
// not answer.
func keepSystemContainerd(t *testing.T) {
	t.Helper()
	before, err := systemView()
	if err != nil {
		t.Logf("a socket exists at %s, but no containerd answers there (%v): nothing to check", podlife.DefaultAddress, err)
		return
	}
	t.Cleanup(func() {
		after, err := systemView()
		if err != nil {
			t.Errorf("the system containerd at %s: %v", podlife.DefaultAddress, err)
			return
		}
		if !slices.Equal(before, after) {
			t.Errorf("the system containerd changed during the test:\nbefore %q\nafter  %q", before, after)
		}
	})
}

// systemView lists the system containerd's namespaces and their containers ("ns", "ns/id").
func systemView() ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.New(podlife.DefaultAddress, client.WithTimeout(5*time.Second))
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
