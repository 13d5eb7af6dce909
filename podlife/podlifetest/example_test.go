package podlifetest_test

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/podlifetest"
)

func ExampleBusyboxArchive() {
	var archive bytes.Buffer
	if err := podlifetest.BusyboxArchive(&archive, "podlife.test/busybox:1"); err != nil {
		log.Fatal(err)
	}
	tr := tar.NewReader(&archive)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		name := hdr.Name
		if hdr.Typeflag == tar.TypeReg && strings.HasPrefix(name, "blobs/sha256/") {
			name = "blobs/sha256/<digest>"
		}
		fmt.Println(name)
	}
	// Output:
	// blobs/
	// blobs/sha256/
	// oci-layout
	// blobs/sha256/<digest>
	// blobs/sha256/<digest>
	// blobs/sha256/<digest>
	// index.json
	// manifest.json
}

// A test that runs its own containerd, imports busybox and checks that it
// leaves nothing behind. (Not run by go test: it needs root.)
func ExampleStartContainerd() {
	ctx := namespaces.WithNamespace(context.Background(), "example")
	ctrd, err := podlifetest.StartContainerd(ctx, daemon.Config{Binary: "/usr/bin/containerd"})
	if err != nil {
		log.Fatal(err)
	}
	defer ctrd.Close() // kills leftover tasks, stops containerd, removes its dir

	img, err := podlifetest.ImportBusybox(ctx, ctrd.Client, "podlife.test/busybox:1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("imported", img.Name())

	// ... create containers and tasks, then delete them ...

	leaks, err := podlifetest.ContainerdLeaks(ctx, ctrd.Client, "example", img.Name())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("leaks:", leaks)
}

// Push an image to a local registry that requires a password, and pull it
// back. (Not run by go test: it needs a containerd and docker-registry.)
func ExampleStartRegistry() {
	ctx := namespaces.WithNamespace(context.Background(), "example")
	var c *client.Client // connected to a containerd that has the image

	creds := &podlifetest.Credentials{Username: "user", Password: "secret"}
	reg, err := podlifetest.StartRegistry(ctx, "", creds)
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Close()

	if err := reg.Push(ctx, c, "podlife.test/busybox:1", "podlife/busybox:1"); err != nil {
		log.Fatal(err)
	}
	img, err := c.Pull(ctx, reg.Ref("podlife/busybox:1"), client.WithResolver(reg.Resolver(creds)))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("pulled", img.Name())
}
