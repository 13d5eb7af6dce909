// Package nodestatus makes the Node object the program registers and keeps its conditions:
// Options.Configure fills in its labels, taints, capacity (the host's CPUs, memory, the state
// dir's filesystem), addresses, system info and conditions; Provider answers
// virtual-kubelet's node controller, measuring the host's memory, disk and PID pressure
// every period.
//
// It reads the host only (through internal/stats' readers) and must not import package main
// (the provider) nor know of pods.
package nodestatus
