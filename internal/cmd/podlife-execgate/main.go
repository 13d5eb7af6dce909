// Command podlife-execgate is the first process of a warm pool member's containers when
// Config.ExecGate names it: podlife mounts it into each container and runs the container's
// command through it, held until the pod is started (see package internal/execgate). It must
// be statically linked (the image may have no C library): build it with
//
//	CGO_ENABLED=0 go build -o /usr/local/bin/podlife-execgate ./internal/cmd/podlife-execgate
//
// It is not meant to be run by hand.
package main

import (
	"os"

	"github.com/podlife/podlife/internal/execgate"
)

func main() { os.Exit(execgate.Main(os.Args, execgate.FIFOPath, os.Stderr)) }
