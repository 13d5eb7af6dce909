// Package logs reads containers' CRI log files (the kubelet's format: "<RFC 3339 time>
// <stream> <F|P> <text>" per line, see package internal/crilog, which writes them): parsing a
// line, printing a file, following the current attempt's file across rotations and restarts
// until the container writes no more. It is the reading side of podlife's Pod.Logs; which files
// a container has and whether its pod ended are the caller's to say (functions and api.PodStatus
// values), so it reads no pod record.
//
// It imports podlife/internal/api (the statuses and ErrNotFound); it must not import package
// podlife, podlife/internal/ctrd, the pod worker's packages or podlife/daemon.
package logs
