package cgroupfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Create makes the cgroup at path (cgroupfs layout) with l's limits mapped as the
// kubelet maps a pod's: a CFS quota, CPU shares (a weight on cgroup v2) and a memory limit.
// runc then creates the containers' cgroups under it, in every hierarchy. On a cgroup v1 (or
// hybrid) host the cgroup is made in the cpu and memory hierarchies; on v2 the cpu and memory
// controllers are enabled down to its parent.
func Create(path string, l Limits) error {
	err := write(path, l)
	if err != nil {
		err = errors.Join(err, Sweep(path))
		return fmt.Errorf("pod cgroup %s: %w", path, err)
	}
	return nil
}

// write makes the cgroup at path and writes l's limits into it.
func write(path string, r Limits) error {
	const period = 100000
	quota := max(r.CPULimit*period/1000, 1000)
	shares := max(r.CPURequest*1024/1000, 2)
	if exists(filepath.Join(Root, "memory")) { // cgroup v1
		var files [][2]string
		if r.MemoryLimit > 0 {
			files = append(files, [2]string{"memory/memory.limit_in_bytes", strconv.FormatInt(r.MemoryLimit, 10)})
		}
		if r.CPULimit > 0 {
			files = append(files, [2]string{"cpu/cpu.cfs_period_us", strconv.Itoa(period)},
				[2]string{"cpu/cpu.cfs_quota_us", strconv.FormatInt(quota, 10)})
		}
		if r.CPURequest > 0 {
			files = append(files, [2]string{"cpu/cpu.shares", strconv.FormatInt(shares, 10)})
		}
		for _, h := range []string{"memory", "cpu"} {
			if err := os.MkdirAll(filepath.Join(Root, h, path), 0o755); err != nil {
				return err
			}
		}
		for _, f := range files {
			hier, name, _ := strings.Cut(f[0], "/")
			if err := os.WriteFile(filepath.Join(Root, hier, path, name), []byte(f[1]), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	// cgroup v2: the controllers must be enabled in every ancestor's subtree_control.
	dir := Root
	for _, part := range strings.Split(strings.Trim(path, "/"), "/") {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+cpu +memory"), 0o644); err != nil {
			return err
		}
		dir = filepath.Join(dir, part)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
	}
	if r.MemoryLimit > 0 {
		if err := os.WriteFile(filepath.Join(dir, "memory.max"), []byte(strconv.FormatInt(r.MemoryLimit, 10)), 0o644); err != nil {
			return err
		}
	}
	if r.CPULimit > 0 {
		if err := os.WriteFile(filepath.Join(dir, "cpu.max"), []byte(fmt.Sprintf("%d %d", quota, period)), 0o644); err != nil {
			return err
		}
	}
	if r.CPURequest > 0 {
		weight := 1 + ((shares-2)*9999)/262142 // runc's conversion of shares to a weight
		if err := os.WriteFile(filepath.Join(dir, "cpu.weight"), []byte(strconv.FormatInt(weight, 10)), 0o644); err != nil {
			return err
		}
	}
	return nil
}
