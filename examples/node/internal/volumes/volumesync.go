package volumes

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/podlife/podlife/podlife"
)

// The kubelet keeps configMap, secret, downwardAPI and projected volumes up to date: each sync
// of the pod (every minute, and on a change of the pod) it resolves their files again from the
// objects (its cache of them has a TTL) and the pod's metadata, and rewrites a volume whose
// files changed with its atomic writer. The node does the same for its node volumes
// (projected.go): every defaultVolumeSyncPeriod, and at once when the pod's labels or
// annotations change (UpdatePod), it converts the pod again against the ConfigMaps and Secrets
// it refers to (a GET of each, as objectSource does at admission: no cluster-wide list or
// watch) and rewrites the volumes whose files differ. A resolution that fails (an object
// deleted, the API server unreachable) leaves the volumes as they are, as on a kubelet. subPath
// mounts of these volumes are bind mounts of the file the container started with: they do not
// follow updates (the kubelet's semantics too).

// defaultVolumeSyncPeriod is how often the node resolves its volumes' files again; the
// kubelet's worst case (its sync period plus the object cache's TTL) is about a minute.
const defaultVolumeSyncPeriod = 10 * time.Second

// resync resolves pp's files again and keeps them for refresh to compare with those written.
func (pj *Projector) resync(ctx context.Context, pp *projection) {
	vols, err := pp.resolve(ctx)
	if err != nil {
		if ctx.Err() == nil {
			pj.log.Debug("resolve node volumes", "pod", pp.pod.Namespace+"/"+pp.pod.Name, "err", err)
		}
		return
	}
	for i := range pp.volumes {
		for _, v := range vols {
			if v.name == pp.volumes[i].name {
				pp.volumes[i].files = v.files
			}
		}
	}
}

// KickPod asks for a resync of the volumes of the podlife pod name now, if the node has any.
func (pj *Projector) KickPod(name string) {
	pj.mu.Lock()
	pp := pj.pods[name]
	pj.mu.Unlock()
	if pp == nil {
		return
	}
	select {
	case pp.kick <- struct{}{}:
	default: // one is pending already
	}
}

// sameFile reports whether a and b are the same file, content and mode.
func sameFile(a, b podlife.File) bool {
	return a.Path == b.Path && a.Mode == b.Mode && bytes.Equal(a.Data, b.Data)
}

// ErrPodGone is returned by a resolve whose pod whose volumes were to be resolved is no longer the node's.
var ErrPodGone = errors.New("pod no longer on this node")
