package daemon_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/containerd/containerd/v2/client"

	"github.com/podlife/podlife/podlife/daemon"
)

// Start a private containerd, talk to it, and stop it. (Not run by go test:
// it needs root and containerd.)
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "plt-") // short: socket paths are limited
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	d, err := daemon.Start(ctx, daemon.Config{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Stop(ctx)

	c, err := client.New(d.Address())
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	serving, err := c.IsServing(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("serving:", serving)
}
