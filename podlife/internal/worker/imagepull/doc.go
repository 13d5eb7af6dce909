// Package imagepull gets the images a pod needs: reference normalisation ([NormalizeRef]), the
// pull policy with the kubelet's events ([Ensure]), the image pull back-off with its waiting
// reasons and events ([Get], [NextDelay]), and image volumes' read-only views: their snapshot
// key ([ViewKey]), their mount ([MountVolumes]) and removal ([RemoveViews]). Who waits for the image is the caller's: the worker (package
// podlife/internal/worker) passes functions that set its containers' waiting state and emit its
// events, and the image store (its tasks.Runtime) behind the small [Store] and [Views]
// interfaces.
//
// It reaches images only through podlife/internal/tasks (the seam over containerd), never
// containerd's client itself. It must not import the worker (arrows one way: worker ->
// imagepull), package podlife, podlife/internal/poddir, podlife/daemon or cni
// (TestPackageArrows checks it).
package imagepull
