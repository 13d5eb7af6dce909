package api

// PodField is a value of the running pod that an environment variable can take (EnvVar.From):
// the fields of Kubernetes' downward API that the kubelet knows only once the pod's sandbox
// exists. Its values are the Kubernetes field paths.
type PodField string

// The pod fields an EnvVar can take.
const (
	// FieldPodIP is the pod's IP address (status.podIP); with HostNetwork, the host's first
	// address (see Config.HostIPs), as under a kubelet.
	FieldPodIP PodField = "status.podIP"
	// FieldPodIPs is the pod's IP addresses, comma-separated (status.podIPs); podlife gives a
	// pod one, so it is FieldPodIP's value (with HostNetwork, the host's addresses).
	FieldPodIPs PodField = "status.podIPs"
	// FieldHostIP is the host's first address (status.hostIP): Config.HostIPs[0].
	FieldHostIP PodField = "status.hostIP"
	// FieldHostIPs is the host's addresses, comma-separated (status.hostIPs): Config.HostIPs.
	FieldHostIPs PodField = "status.hostIPs"
	// FieldPodUID is the pod's UID (metadata.uid): Pod.UID, a random identifier of this pod
	// instance.
	FieldPodUID PodField = "metadata.uid"
)

// podFields are the PodField values, for validation.
var podFields = []PodField{FieldPodIP, FieldPodIPs, FieldHostIP, FieldHostIPs, FieldPodUID}
