// Package execgate holds a warm pool member's containers at the door of their command, so
// that starting them costs a write to a FIFO instead of a Task.Start (Config.ExecGate).
//
// A gated container's first process is the gate program (podlife-execgate, whose whole logic is
// [Main]), bind-mounted at [BinaryPath] with the container's FIFO at [FIFOPath]: it resolves
// the command as runc would (the container's PATH, its user, its working directory), opens the
// FIFO and waits; podlife ([FIFO]) opens the other end once the member is made (which tells it
// the gate waits) and writes one byte when the pod is started ([FIFO.Release]); the gate then
// executes the command in its own place: same PID, environment, user, capabilities, seccomp
// filter, cgroup and namespaces, as runc's own start would have. If podlife's end closes
// without a byte (the process that made the member died), the gate exits with
// [ExitManagerGone] and the command never runs.
//
// The package has no dependency beyond the standard library, x/sys and the OCI runtime spec:
// the gate program links only what Main needs. It must not import podlife's packages.
package execgate
