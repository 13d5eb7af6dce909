// Package podtable is a Runtime's table of pods (Table): the workers of the pods it manages by
// name, the names reserved by pods being created, and whether the Runtime is closed, as the
// kubelet's pod manager keeps its pods. Its lock is the Runtime's only lock over its pods, and
// is never held across I/O, another lock (another process's pods lock among them) or a call
// into a pod (issue 17's rule: a startup garbage collection of another process never stalls
// Status, ListPods or Close).
//
// It is generic over what it keeps (the Runtime keeps its pods' workers), so that it imports
// only api: it must not import package podlife, the pod worker, adoption, the warm pool, the
// control socket, containerd's client or podlife/daemon (TestPackageArrows checks it).
package podtable
