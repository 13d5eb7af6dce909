// Package breakdown holds podlife-bench's breakdown measurement.
//
// The breakdown (-only breakdown) says where a podlife start and teardown of the bench pod
// spend their wall time (the pod's events and podlife's debug step timings) and their CPU time,
// process by process:
//   - CPU per process by perf(1) sampling (cpu-clock, one sample per 0.25 ms of CPU) of this
//     process and its containerd and of every process they start (perf_linux.go);
//   - how many processes of each kind ran per pod by the kernel's process accounting (acct(2):
//     one record per exit, a fork that never executed anything included; its CPU times are
//     rounded down to 10 ms, too coarse for runc or a CNI plugin, so only the counts are used),
//     kept if their parent is in the stack;
//   - the whole stack's CPU exactly by a cpuacct cgroup that this process and its containerd are
//     moved into (everything they start inherits it, but the containers' own processes, which
//     runc moves to theirs): the check on the sampled sum.
//
// It must not import the command (internal/cmd/podlife-bench) nor the other internal/bench
// packages but measure: each measurement stands alone, and the command composes them
// (TestPackageArrows in podlife/internal/layout).
package breakdown
