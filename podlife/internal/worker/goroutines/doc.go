// Package goroutines is the mechanism by which the pod worker owns and awaits every goroutine it
// starts: a [Group] starts each one under a name ([Group.Go]), counts it while it runs
// ([Group.Counts]), and awaits them all or those of some names ([Group.Await]), but for the
// caller's own. The one exception is user Go code that ignores its context (a Go lifecycle hook
// past its deadline, a start policy after the stop cancelled it): its owner abandons it with
// [Group.Release], and it is counted as abandoned, awaited by nothing, until it returns.
//
// The names, and who awaits what, are the worker's (podlife/internal/worker's group.go). The
// group's mutex guards only which goroutines run, never an owner's state. It imports only the
// standard library and must not import the pod worker, package podlife or podlife/daemon
// (TestPackageArrows checks it).
package goroutines
