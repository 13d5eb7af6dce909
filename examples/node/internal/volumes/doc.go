// Package volumes materializes a pod's node volumes as the kubelet does: the configMap,
// secret, downwardAPI and projected volumes (serviceAccountToken sources included, tokens
// requested from the API server and refreshed before they expire), written atomically (the
// kubelet's ..data symlink swap) into a directory per pod that the pod mounts as a host path,
// and re-resolved every sync period so that the files follow the objects' updates.
//
// It owns the Projector (one goroutine per pod that has node volumes, owned and awaited by
// it), the atomic writer and the split of a v1.Pod's node volumes from what kube.Convert
// makes. It is given plain values (a client, a directory, a resolve function) and must not
// import package main (the provider): the provider converts pods and passes their volumes.
package volumes
