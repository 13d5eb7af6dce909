// Package adopt is adoption: a Runtime taking over the supervision of a pod whose manager is
// gone (Adopter.Adopt: the record read, the spec checked against its fingerprints, the adoption
// lock taken, what runs observed and handed to the worker's Restore constructor), and the
// unmanaged path: stopping or removing a pod this Runtime does not manage, by asking its
// manager through its control socket or, without one, by adopting it for the purpose
// (Adopter.Foreign, StopUnmanaged). It holds the adoption locks of the pods a Runtime adopted
// (Locks).
//
// The Runtime gives it plain values and functions (Adopter: the worker Host, registering an
// adopted worker, starting the control socket, the admission of a recorded spec); it never sees
// the Runtime. It may import the pod worker and its sub-packages (observe, record), found and
// the control socket's client; the worker must not import it. It must not import package
// podlife, the startup garbage collection (podlife/internal/gc), the warm pool or podlife/daemon
// (TestPackageArrows checks it).
package adopt
