// Package resizing resizes a running pod's container in place (Kubernetes'
// InPlacePodVerticalScaling), as the kubelet does it, for the pod's worker
// (podlife/internal/worker): the resize is checked (api.CheckResize: the API server's rules, the
// QoS class kept), then allocated (what the container's status reports as allocated and what
// its next instance is created with), then actuated: the running instance's cgroup is updated
// through containerd (runc update: [InPlace]), or, where the container's resizePolicy says
// RestartContainer for a resource that changes, the container is stopped and restarted at once
// with the new resources (its restart count grows, no crash-loop back-off). The resized
// resources go into the pod's record, spec and fingerprints alike ([Record]), so that an
// adopter given the spec as resized (the spec an API server holds after the resize) adopts it,
// and restarts its containers with them. A pod's resizes run one at a time ([Gate]).
//
// # What it owns
//
// The sequence of one resize ([Resize]) and its rules; no pod state: the worker keeps the
// allocated resources, the instances and the record on its loop, and [Resize] reaches them
// only through the [Target] interface the worker implements. The [Gate]'s lock guards only the
// gate. It reaches containerd only through the tasks seam (podlife/internal/tasks).
//
// It must not import the worker (arrows one way: worker -> resizing), package podlife,
// adoption, the startup GC, the control socket, podlife/internal/poddir, podlife/daemon or cni
// (TestPackageArrows checks it).
package resizing
