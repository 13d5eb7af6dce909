package imagepull

// ViewKey is the snapshot key of the view of a pod's image volume: the image's unpacked
// filesystem, mounted read-only in the pod's directory (no copy), as containerd's CRI does.
func ViewKey(podUID, volume string) string { return "podlife-" + podUID + "-image-" + volume }
