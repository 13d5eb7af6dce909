// Command podlife-logger is the container logger of podlife (Config.ContainerLogger):
// containerd's shim runs one beside each container, which hands the container's output to the
// state dir's shared logger (this program, started once) and exits; the shared logger writes
// every container's output to the pods' log files in the CRI format, rotated by size, whether or
// not the process that manages the pods still runs. It is not meant to be run by hand.
//
// Build it with `go build -o /usr/local/bin/podlife-logger ./internal/cmd/podlife-logger`
// (or `go install github.com/podlife/podlife/internal/cmd/podlife-logger@<version>`) and set
// Config.ContainerLogger to its absolute path. A program can instead be its own logger: see
// package podlife/containerlogger.
package main

import "github.com/podlife/podlife/internal/logdriver"

func main() { logdriver.Main() }
