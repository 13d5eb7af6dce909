// Package cgroupfs holds the cgroup file helpers of package podlife, for containerd's default
// cgroupfs layout: a container's cgroup path, making a pod cgroup with CPU and memory limits
// (cgroup v1 and v2, Linux only), removing a cgroup runc left behind in every hierarchy, and
// reading whether the OOM killer struck.
//
// It takes plain values (paths, Limits) and knows nothing of pods or specs. It must not import
// package podlife or any other package of this repository.
package cgroupfs
