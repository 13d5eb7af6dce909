// Package failpoint kills the process at named points of podlife's core, for crash tests (etcd's
// gofail is the model).
//
// The core calls Hit("name") at each point. In a normal build Hit is an empty function the
// compiler inlines away. In a build with -tags failpoints, Hit reads the environment variable
// PODLIFE_FAILPOINT once and, when it names the point, writes a marker line
//
//	podlife-failpoint: <name> hit <n>
//
// to stderr and SIGKILLs its own process: nothing runs after it (no deferred calls, no Close),
// as in a crash or an OOM kill. The variable's forms:
//
//	name           the first hit of name
//	name@N         the Nth hit (N >= 1)
//	name+DURATION  DURATION after the first hit, while the code after the point runs (a slow
//	               hook, say): the kill lands in the middle of what follows
//	name@N+DURATION
//
// The points are listed in docs/concepts.md ("Crash safety"); Names in a failpoints build lists
// those hit so far.
//
// It imports nothing of this repository and must not: package podlife calls it around its crash
// points.
package failpoint

// Marker is the start of the line a failpoints build writes to stderr before it kills itself.
const Marker = "podlife-failpoint: "

// Env is the environment variable that names the point to kill at.
const Env = "PODLIFE_FAILPOINT"
