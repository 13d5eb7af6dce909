package volumes

import (
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"

	"github.com/podlife/podlife/podlife"
)

// podlife alone has no API server to issue service-account tokens, so kube.Convert refuses a
// projected volume's serviceAccountToken source; and its files volumes are written once, where
// the kubelet keeps configMap, secret, downwardAPI and projected volumes up to date with their
// objects and the pod's metadata. The node therefore materializes every volume of those kinds
// itself, as the kubelet does: kube.Convert resolves the volume's files (items, modes,
// defaultMode, optional) as for podlife alone, the node asks the API server for the tokens of
// projected serviceAccountToken sources (tokens.go), writes the whole payload into a host
// directory of the pod with the kubelet's atomic writer layout (atomicwriter.go), and the pod
// gets that directory as a hostPath volume mounted read-only. The node rewrites it when a token
// is due for refresh or the files changed (volumesync.go), and removes it with the pod.

// tokenSource is a serviceAccountToken source of a projected volume.
type tokenSource struct {
	path              string
	audience          string // "" asks for the API server's own audiences
	expirationSeconds int64
	mode              os.FileMode

	issued issuedToken // the token last written, and when to refresh it (tokens.go)
}

// NodeVolume is a configMap, secret, downwardAPI or projected volume the node materializes.
type NodeVolume struct {
	name   string
	tokens []tokenSource
	files  []podlife.File // the other sources' files, as kube.Convert resolved them
}

// defaultTokenExpiration is the API's default expirationSeconds of a serviceAccountToken
// source (1 h); the API server refuses less than 10 minutes.
const defaultTokenExpiration = 3600

// SplitNodeVolumes returns the node volumes of pod: its configMap, secret, downwardAPI and
// projected volumes, with the serviceAccountToken sources of the projected ones; and a copy of
// pod whose serviceAccountToken sources are replaced by empty ones (so that kube.Convert
// converts the rest, and its paths keep their indices). A pod without any token source is
// returned as it is.
func SplitNodeVolumes(pod *corev1.Pod) (*corev1.Pod, []NodeVolume) {
	var vols []NodeVolume
	var out *corev1.Pod
	for i, v := range pod.Spec.Volumes {
		if v.ConfigMap != nil || v.Secret != nil || v.DownwardAPI != nil || v.Projected != nil {
			vols = append(vols, NodeVolume{name: v.Name})
		}
		if v.Projected == nil {
			continue
		}
		mode := os.FileMode(defaultFileMode)
		if m := v.Projected.DefaultMode; m != nil {
			mode = os.FileMode(*m) & os.ModePerm
		}
		nv := &vols[len(vols)-1]
		for j, s := range v.Projected.Sources {
			t := s.ServiceAccountToken
			if t == nil || s.ConfigMap != nil || s.Secret != nil || s.DownwardAPI != nil || s.ClusterTrustBundle != nil || s.PodCertificate != nil {
				continue // kube.Convert reports a source of several kinds
			}
			if out == nil {
				out = pod.DeepCopy()
			}
			exp := int64(defaultTokenExpiration)
			if t.ExpirationSeconds != nil {
				exp = *t.ExpirationSeconds
			}
			nv.tokens = append(nv.tokens, tokenSource{path: t.Path, audience: t.Audience, expirationSeconds: exp, mode: mode})
			out.Spec.Volumes[i].Projected.Sources[j] = corev1.VolumeProjection{}
		}
	}
	if out == nil {
		return pod, vols
	}
	return out, vols
}

// defaultFileMode is the API's default mode of projected files.
const defaultFileMode = 0o644

// TakeNodeVolumes moves the files kube.Convert made of each node volume out of spec into vols,
// and makes each of them a read-only hostPath volume of dir/NAME (the pod's directory of node
// volumes).
func TakeNodeVolumes(spec *podlife.PodSpec, vols []NodeVolume, dir string) {
	for i := range vols {
		for j := range spec.Volumes {
			v := &spec.Volumes[j]
			if v.Name != vols[i].name {
				continue
			}
			if v.Files != nil {
				vols[i].files = v.Files.Files
			}
			*v = podlife.Volume{Name: v.Name, HostPath: &podlife.HostPathVolume{
				Path: filepath.Join(dir, v.Name), Type: podlife.HostPathDirectory}}
		}
		for _, cs := range [][]podlife.ContainerSpec{spec.InitContainers, spec.Containers} {
			for c := range cs {
				for k := range cs[c].VolumeMounts {
					if cs[c].VolumeMounts[k].Name == vols[i].name {
						cs[c].VolumeMounts[k].ReadOnly = true
					}
				}
			}
		}
	}
}
