package volumes

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/podlife/podlife/podlife"
)

// TestWriteAtomic: the kubelet's layout (a timestamped payload, ..data linked to it, each
// top-level name linked into ..data); a rewrite swaps ..data, drops the old payload and the
// names the new payload no longer has, and keeps the file modes.
func TestWriteAtomic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vol")
	first := []podlife.File{{Path: "token", Data: []byte("one"), Mode: 0o600}, {Path: "ca.crt", Data: []byte("ca")}, {Path: "sub/ns", Data: []byte("x")}}
	payload := func(files []podlife.File) []payloadFile {
		out := make([]payloadFile, 0, len(files))
		for _, f := range files {
			out = append(out, payloadFile{File: f, uid: -1})
		}
		return out
	}
	if err := writeAtomic(dir, payload(first), -1); err != nil {
		t.Fatal(err)
	}
	check := func(files []podlife.File) string {
		t.Helper()
		data, err := os.Readlink(filepath.Join(dir, dataDirName))
		if err != nil || !strings.HasPrefix(data, "..20") {
			t.Fatalf("..data -> %q, %v; want a timestamped directory", data, err)
		}
		var names []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			names = append(names, e.Name())
		}
		want := []string{dataDirName, data}
		for _, f := range files {
			top := strings.SplitN(f.Path, "/", 2)[0]
			if !slices.Contains(want, top) {
				want = append(want, top)
			}
			if target, err := os.Readlink(filepath.Join(dir, top)); err != nil || target != filepath.Join(dataDirName, top) {
				t.Errorf("%s -> %q, %v; want ..data/%s", top, target, err, top)
			}
			b, err := os.ReadFile(filepath.Join(dir, f.Path))
			if err != nil || string(b) != string(f.Data) {
				t.Errorf("%s: %q, %v; want %q", f.Path, b, err, f.Data)
			}
			mode := f.Mode
			if mode == 0 {
				mode = 0o644
			}
			if fi, err := os.Stat(filepath.Join(dir, f.Path)); err != nil || fi.Mode().Perm() != mode {
				t.Errorf("%s: %v, want mode %v", f.Path, err, mode)
			}
		}
		slices.Sort(names)
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Errorf("entries %v, want %v", names, want)
		}
		return data
	}
	old := check(first)
	second := []podlife.File{{Path: "token", Data: []byte("two"), Mode: 0o600}, {Path: "namespace", Data: []byte("ns")}}
	if err := writeAtomic(dir, payload(second), -1); err != nil {
		t.Fatal(err)
	}
	if now := check(second); now == old {
		t.Errorf("..data still -> %s after a rewrite", old)
	}
	if err := writeAtomic(dir, payload([]podlife.File{{Path: "../escape"}}), -1); err == nil {
		t.Error("a path out of the volume was written")
	}
}

// TestSplitNodeVolumes: configMap, secret, downwardAPI and projected volumes are the node's,
// the serviceAccountToken sources of projected volumes go to the node (with the API's
// defaults), the other sources stay for kube.Convert at their indices, and a pod without tokens
// is left as it is; TakeNodeVolumes makes those volumes read-only host directories.
func TestSplitNodeVolumes(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "app"}},
		Volumes: []corev1.Volume{
			{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
			{Name: "kube-api-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				DefaultMode: ptr.To[int32](0o640),
				Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](3607)}},
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}}},
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "vault", Audience: "vault"}},
				}}}},
		}}}
	conv, vols := SplitNodeVolumes(pod)
	if conv == pod || pod.Spec.Volumes[1].Projected.Sources[0].ServiceAccountToken == nil {
		t.Fatal("SplitNodeVolumes changed the pod it was given")
	}
	if src := conv.Spec.Volumes[1].Projected.Sources; src[0].ServiceAccountToken != nil || src[2].ServiceAccountToken != nil || src[1].ConfigMap == nil {
		t.Errorf("sources left to kube.Convert: %+v", src)
	}
	want := []tokenSource{{path: "token", expirationSeconds: 3607, mode: 0o640}, {path: "vault", audience: "vault", expirationSeconds: 3600, mode: 0o640}}
	if len(vols) != 2 || vols[0].name != "cfg" || len(vols[0].tokens) != 0 || vols[1].name != "kube-api-access" || !slices.Equal(vols[1].tokens, want) {
		t.Errorf("node volumes %+v, want cfg, and kube-api-access with %+v", vols, want)
	}
	if p, v := SplitNodeVolumes(&corev1.Pod{}); p == nil || v != nil {
		t.Errorf("a pod without tokens: %v, %v", p, v)
	}

	spec := podlife.PodSpec{
		Volumes: []podlife.Volume{{Name: "cfg", Files: &podlife.FilesVolume{Files: []podlife.File{{Path: "key"}}}},
			{Name: "kube-api-access", Files: &podlife.FilesVolume{Files: []podlife.File{{Path: "ca.crt"}}}},
			{Name: "scratch", EmptyDir: &podlife.EmptyDirVolume{}}},
		Containers: []podlife.ContainerSpec{{Name: "app", VolumeMounts: []podlife.VolumeMount{{Name: "kube-api-access", MountPath: "/sa"}, {Name: "cfg", MountPath: "/cfg"}, {Name: "scratch", MountPath: "/tmp"}}}},
	}
	TakeNodeVolumes(&spec, vols, "/state/k8s-volumes/p")
	if h := spec.Volumes[1].HostPath; h == nil || h.Path != "/state/k8s-volumes/p/kube-api-access" || spec.Volumes[1].Files != nil {
		t.Errorf("node volume %+v, want a hostPath of the pod's directory", spec.Volumes[1])
	}
	if h := spec.Volumes[0].HostPath; h == nil || h.Path != "/state/k8s-volumes/p/cfg" || spec.Volumes[2].EmptyDir == nil {
		t.Errorf("volumes %+v", spec.Volumes)
	}
	if m := spec.Containers[0].VolumeMounts; !m[0].ReadOnly || !m[1].ReadOnly || m[2].ReadOnly {
		t.Errorf("mounts %+v", m)
	}
	if len(vols[0].files) != 1 || vols[0].files[0].Path != "key" || len(vols[1].files) != 1 || vols[1].files[0].Path != "ca.crt" {
		t.Errorf("files of the other sources: %+v", vols[0].files)
	}
}

// TestFsUser: the kubelet's owner of a pod's tokens is the runAsUser all its containers share
// (a container's own, else the pod's), none when one has none or they differ.
func TestFsUser(t *testing.T) {
	sc := func(uid int64) *corev1.SecurityContext { return &corev1.SecurityContext{RunAsUser: &uid} }
	for _, c := range []struct {
		name string
		pod  corev1.PodSpec
		want int
	}{
		{"none", corev1.PodSpec{Containers: []corev1.Container{{}}}, -1},
		{"pod's", corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](1000)}, Containers: []corev1.Container{{}, {}}}, 1000},
		{"containers' own", corev1.PodSpec{InitContainers: []corev1.Container{{SecurityContext: sc(7)}}, Containers: []corev1.Container{{SecurityContext: sc(7)}}}, 7},
		{"differ", corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](1000)}, Containers: []corev1.Container{{}, {SecurityContext: sc(7)}}}, -1},
		{"one unset", corev1.PodSpec{Containers: []corev1.Container{{SecurityContext: sc(7)}, {}}}, -1},
	} {
		if got := fsUser(&corev1.Pod{Spec: c.pod}); got != c.want {
			t.Errorf("%s: fsUser = %d, want %d", c.name, got, c.want)
		}
	}
}
