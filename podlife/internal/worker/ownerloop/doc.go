// Package ownerloop is the mechanism of the pod worker's ownership rule: one goroutine, the
// [Loop], is the only code to read or write an owner's mutable state; every other goroutine
// hands it closures and waits for them to have run (closures in), and readers read the
// immutable snapshot the loop last published (snapshots out). A closure does no I/O and never
// hands the loop another closure: test binaries make that a panic ([EnableReentryCheck]).
//
// It owns the loop's channel, its end, and the atomic publication of snapshots; what the state
// is and how a snapshot is built from it are the owner's (the worker's owner.go). It imports
// only podlife/internal/worker/goroutines (a goroutine's number) and must not import the pod
// worker (podlife/internal/worker), package podlife or anything that does I/O
// (TestPackageArrows checks the first two).
package ownerloop
