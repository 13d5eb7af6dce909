// Package stats builds what the kubelet serves about usage: the Summary API
// (/stats/summary: the node's CPU, memory and filesystem, each pod's containers, network,
// processes and ephemeral storage, with CPU rates from the previous request's samples) and
// the resource metrics (/metrics/resource, what metrics-server scrapes for `kubectl top`),
// from podlife's Runtime.Usage and Pod.DiskUsage and the host's root cgroup and /proc. It
// also reads the host's memory and a filesystem's size for the Node's capacity and pressure
// conditions.
//
// It owns the rate cache and the host readers. It is given plain values (the node's name,
// its pods, a function sampling their usage) and must not import package main (the
// provider): the provider lists its pods and calls it.
package stats
