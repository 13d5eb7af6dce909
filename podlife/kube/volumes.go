package kube

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife"
)

// defaultFileMode is the API's default mode of configMap, secret, downwardAPI and projected
// files.
const defaultFileMode = 0o644

// volumes converts the pod's volumes. Every volume yields one podlife volume, so that indices
// and names stay those of the document; one that cannot be converted is an empty emptyDir,
// its issues reported.
func (c *converter) volumes() {
	for i := range c.src.spec.Volumes {
		v := &c.src.spec.Volumes[i]
		p := c.specPath.Child("volumes").Index(i)
		vol := c.volume(v, p, fmt.Sprintf("spec.volumes[%d]", i))
		vol.Name = v.Name
		if vol.EmptyDir == nil && vol.HostPath == nil && vol.Files == nil && vol.Image == nil {
			vol.EmptyDir = &podlife.EmptyDirVolume{}
		}
		c.out.Volumes = append(c.out.Volumes, vol)
	}
}

// volume converts one volume; pl is its path in podlife's validation.
func (c *converter) volume(v *corev1.Volume, p *field.Path, pl string) podlife.Volume {
	switch set := setSources(&v.VolumeSource); {
	case len(set) == 0:
		// The API defaults a volume without a source to an emptyDir.
		return podlife.Volume{EmptyDir: &podlife.EmptyDirVolume{}}
	case len(set) > 1:
		// As the API server, every source after the first (in its order) is reported.
		for _, name := range set[1:] {
			c.is.Field(field.Forbidden(p.Child(name), "may not specify more than 1 volume type"))
		}
		return podlife.Volume{}
	}
	switch {
	case v.EmptyDir != nil:
		return podlife.Volume{EmptyDir: c.emptyDir(v.EmptyDir, p.Child("emptyDir"))}
	case v.HostPath != nil:
		return podlife.Volume{HostPath: c.hostPath(v.HostPath, p.Child("hostPath"))}
	case v.ConfigMap != nil:
		src, sp := v.ConfigMap, p.Child("configMap")
		mode := c.fileMode(sp.Child("defaultMode"), src.DefaultMode, defaultFileMode)
		files := c.configMapFiles(sp, src.Name, src.Items, src.Optional, mode, pl, 0)
		return podlife.Volume{Files: &podlife.FilesVolume{Files: files}}
	case v.Secret != nil:
		src, sp := v.Secret, p.Child("secret")
		mode := c.fileMode(sp.Child("defaultMode"), src.DefaultMode, defaultFileMode)
		files := c.secretFiles(sp, "secretName", src.SecretName, src.Items, src.Optional, mode, pl, 0)
		return podlife.Volume{Files: &podlife.FilesVolume{Files: files, Medium: podlife.MediumMemory}}
	case v.DownwardAPI != nil:
		sp := p.Child("downwardAPI")
		mode := c.fileMode(sp.Child("defaultMode"), v.DownwardAPI.DefaultMode, defaultFileMode)
		files := c.downwardFiles(sp, v.DownwardAPI.Items, mode, pl, 0)
		return podlife.Volume{Files: &podlife.FilesVolume{Files: files, Medium: podlife.MediumMemory}}
	case v.Image != nil:
		// The pull policy's default is podlife's, as a container image's.
		return podlife.Volume{Image: &podlife.ImageVolume{Reference: v.Image.Reference,
			PullPolicy: podlife.PullPolicy(v.Image.PullPolicy)}}
	case v.Projected != nil:
		return podlife.Volume{Files: &podlife.FilesVolume{Files: c.projectedFiles(v.Projected, p.Child("projected"), pl),
			Medium: podlife.MediumMemory}}
	}
	// Another volume type: the field rules have reported it.
	return podlife.Volume{}
}

// sourceOrder is the order in which the API server looks at volume sources
// (validateVolumeSource): the first one set is the volume's, the others are reported.
var sourceOrder = []string{"emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore",
	"secret", "nfs", "iscsi", "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "cinder", "cephfs",
	"quobyte", "downwardAPI", "fc", "flexVolume", "configMap", "azureFile", "vsphereVolume",
	"photonPersistentDisk", "portworxVolume", "azureDisk", "storageos", "projected", "scaleIO", "csi",
	"ephemeral", "image"}

// setSources returns the JSON names of the volume sources set, in sourceOrder; a source
// the order does not know (one of a newer k8s.io/api) comes last.
func setSources(vs *corev1.VolumeSource) []string {
	var set []string
	v := reflect.ValueOf(vs).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			set = append(set, name)
		}
	}
	rank := func(name string) int {
		if i := slices.Index(sourceOrder, name); i >= 0 {
			return i
		}
		return len(sourceOrder)
	}
	slices.SortStableFunc(set, func(a, b string) int { return rank(a) - rank(b) })
	return set
}

// emptyDir converts an emptyDir volume.
func (c *converter) emptyDir(e *corev1.EmptyDirVolumeSource, p *field.Path) *podlife.EmptyDirVolume {
	out := &podlife.EmptyDirVolume{}
	switch e.Medium {
	case corev1.StorageMediumDefault:
	case corev1.StorageMediumMemory:
		out.Medium = podlife.MediumMemory
	default:
		c.is.Field(field.NotSupported(p.Child("medium"), e.Medium, []corev1.StorageMedium{corev1.StorageMediumDefault, corev1.StorageMediumMemory}))
	}
	if e.SizeLimit != nil && e.SizeLimit.Sign() < 0 {
		c.is.Field(field.Forbidden(p.Child("sizeLimit"), "SizeLimit field must be a valid resource quantity"))
	} else if e.SizeLimit != nil {
		n, ok := c.quantity(p.Child("sizeLimit"), e.SizeLimit, false)
		if ok {
			out.SizeLimit = n
		}
	}
	return out
}

// hostPath converts a hostPath volume.
func (c *converter) hostPath(h *corev1.HostPathVolumeSource, p *field.Path) *podlife.HostPathVolume {
	out := &podlife.HostPathVolume{Path: h.Path}
	if h.Path == "" {
		c.is.Field(field.Required(p.Child("path"), ""))
	}
	if h.Type == nil {
		return out
	}
	supported := []corev1.HostPathType{corev1.HostPathUnset, corev1.HostPathDirectoryOrCreate, corev1.HostPathDirectory,
		corev1.HostPathFileOrCreate, corev1.HostPathFile}
	if !slices.Contains(supported, *h.Type) {
		// A type the API knows but podlife does not check is podlife's refusal; another is
		// the API server's, with its list.
		if !slices.Contains(apiHostPathTypes, *h.Type) {
			supported = apiHostPathTypes
		}
		c.is.Field(field.NotSupported(p.Child("type"), *h.Type, supported))
		return out
	}
	out.Type = podlife.HostPathType(*h.Type)
	return out
}

// apiHostPathTypes are the hostPath types the API server accepts, in its order.
var apiHostPathTypes = []corev1.HostPathType{corev1.HostPathUnset, corev1.HostPathBlockDev, corev1.HostPathCharDev,
	corev1.HostPathDirectory, corev1.HostPathDirectoryOrCreate, corev1.HostPathFile, corev1.HostPathFileOrCreate,
	corev1.HostPathSocket}

// quantity returns a quantity as an integer (rounded up), or its milli-value; a negative or
// out-of-range value is an error.
func (c *converter) quantity(p *field.Path, q *resource.Quantity, milli bool) (int64, bool) {
	limit := float64(1 << 62)
	if milli {
		limit /= 1000
	}
	if q.Sign() < 0 {
		c.is.Field(field.Invalid(p, q.String(), "must be greater than or equal to 0"))
		return 0, false
	}
	if q.AsApproximateFloat64() > limit {
		c.is.Field(field.Invalid(p, q.String(), "must be between 0 and 2^62"))
		return 0, false
	}
	if milli {
		return q.MilliValue(), true
	}
	return q.Value(), true
}

// fileMode checks a mode field: the API allows 0 to 0777.
func (c *converter) fileMode(p *field.Path, m *int32, def os.FileMode) os.FileMode {
	if m == nil {
		return def
	}
	if *m < 0 || *m > 0o777 {
		c.is.Field(field.Invalid(p, *m, "must be a number between 0 and 0777 (octal), both inclusive"))
		return def
	}
	return os.FileMode(*m)
}

// keyFiles makes the files of a configMap or secret source from its data: every key, or the
// items given. pl is the volume's path in podlife's validation; the files are numbered in it
// from first.
func (c *converter) keyFiles(p, namePath *field.Path, data map[string][]byte, items []corev1.KeyToPath, optional bool,
	mode os.FileMode, pl string, first int, what string) []podlife.File {
	var files []podlife.File
	if len(items) == 0 {
		for _, k := range slices.Sorted(maps.Keys(data)) {
			// A key podlife cannot take as a file name is the referenced object's fault.
			c.mapPath(fmt.Sprintf("%s.files[%d].path", pl, first+len(files)), namePath)
			files = append(files, podlife.File{Path: k, Data: data[k], Mode: mode})
		}
		return files
	}
	for j, it := range items {
		ip := p.Child("items").Index(j)
		if it.Key == "" {
			c.is.Field(field.Required(ip.Child("key"), ""))
			c.relativePath(ip.Child("path"), it.Path)
			continue
		}
		d, ok := data[it.Key]
		if !ok {
			if !optional {
				c.is.Errorf(ip.Child("key"), "Not found: %q: no such key in %s", it.Key, what)
			}
			continue
		}
		if !c.relativePath(ip.Child("path"), it.Path) {
			continue
		}
		c.mapPath(fmt.Sprintf("%s.files[%d]", pl, first+len(files)), ip)
		files = append(files, podlife.File{Path: it.Path, Data: d, Mode: c.fileMode(ip.Child("mode"), it.Mode, mode)})
	}
	return files
}

// relativePath checks a file path as the API server does (validateKeyToPath,
// ValidateLocalNonReservedPath): given, relative, without a ".." element, not starting with
// "..".
func (c *converter) relativePath(p *field.Path, s string) bool {
	ok := true
	bad := func(fe *field.Error) {
		c.is.Field(fe)
		ok = false
	}
	if s == "" {
		bad(field.Required(p, ""))
	}
	if path.IsAbs(s) {
		bad(field.Invalid(p, s, "must be a relative path"))
	}
	if slices.Contains(strings.Split(s, "/"), "..") {
		bad(field.Invalid(p, s, "must not contain '..'"))
	}
	if strings.HasPrefix(s, "..") && !strings.HasPrefix(s, "../") {
		bad(field.Invalid(p, s, "must not start with '..'"))
	}
	return ok
}

// configMapFiles makes the files of a configMap source (a volume or a projection).
func (c *converter) configMapFiles(p *field.Path, name string, items []corev1.KeyToPath, optional *bool,
	mode os.FileMode, pl string, first int) []podlife.File {
	opt := optional != nil && *optional
	if name == "" {
		c.is.Field(field.Required(p.Child("name"), ""))
		return nil
	}
	cm := c.objects.configMap(name)
	if cm == nil {
		if !opt {
			c.is.Errorf(p.Child("name"), "Not found: %q: no such ConfigMap given with the pod", name)
		}
		return nil
	}
	return c.keyFiles(p, p.Child("name"), c.shared.configMapData(cm), items, opt, mode, pl, first, fmt.Sprintf("ConfigMap %q", name))
}

// secretFiles makes the files of a secret source; nameField is "secretName" (a volume) or
// "name" (a projection).
func (c *converter) secretFiles(p *field.Path, nameField, name string, items []corev1.KeyToPath, optional *bool,
	mode os.FileMode, pl string, first int) []podlife.File {
	opt := optional != nil && *optional
	if name == "" {
		c.is.Field(field.Required(p.Child(nameField), ""))
		return nil
	}
	s := c.objects.secret(name)
	if s == nil {
		if !opt {
			c.is.Errorf(p.Child(nameField), "Not found: %q: no such Secret given with the pod", name)
		}
		return nil
	}
	return c.keyFiles(p, p.Child(nameField), c.shared.secretData(s), items, opt, mode, pl, first, fmt.Sprintf("Secret %q", name))
}

// downwardFiles makes the files of a downwardAPI source from the pod's metadata and its
// containers' resources.
func (c *converter) downwardFiles(p *field.Path, items []corev1.DownwardAPIVolumeFile, mode os.FileMode, pl string, first int) []podlife.File {
	var files []podlife.File
	for j, it := range items {
		ip := p.Child("items").Index(j)
		if !c.relativePath(ip.Child("path"), it.Path) {
			continue
		}
		var v string
		var ok bool
		switch {
		case it.FieldRef != nil && it.ResourceFieldRef != nil:
			c.is.Field(field.Invalid(ip, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
		case it.FieldRef != nil:
			v, _, ok = c.envs.FieldRef(ip.Child("fieldRef"), it.FieldRef, true)
		case it.ResourceFieldRef != nil:
			v, ok = c.envs.ResourceFieldRef(ip.Child("resourceFieldRef"), it.ResourceFieldRef, nil)
		default:
			c.is.Field(field.Required(ip, "one of fieldRef and resourceFieldRef is required"))
		}
		if !ok {
			continue
		}
		c.mapPath(fmt.Sprintf("%s.files[%d]", pl, first+len(files)), ip)
		files = append(files, podlife.File{Path: it.Path, Data: []byte(v), Mode: c.fileMode(ip.Child("mode"), it.Mode, mode)})
	}
	return files
}

// projectedFiles makes the files of a projected volume: its configMap, secret and
// downwardAPI sources together, whose paths must not collide.
func (c *converter) projectedFiles(v *corev1.ProjectedVolumeSource, p *field.Path, pl string) []podlife.File {
	mode := c.fileMode(p.Child("defaultMode"), v.DefaultMode, defaultFileMode)
	var files []podlife.File
	seen := map[string]bool{}
	for i, s := range v.Sources {
		sp := p.Child("sources").Index(i)
		n := 0
		for _, set := range []bool{s.ConfigMap != nil, s.Secret != nil, s.DownwardAPI != nil,
			s.ServiceAccountToken != nil, s.ClusterTrustBundle != nil, s.PodCertificate != nil} {
			if set {
				n++
			}
		}
		if n > 1 {
			c.is.Field(field.Forbidden(sp, "may not specify more than 1 volume type per source"))
			continue
		}
		var got []podlife.File
		// The API server reports a collision at the volume, naming the source (a ConfigMap
		// or Secret) or the file (downwardAPI).
		name := ""
		switch {
		case s.ConfigMap != nil:
			name = s.ConfigMap.Name
			got = c.configMapFiles(sp.Child("configMap"), s.ConfigMap.Name, s.ConfigMap.Items, s.ConfigMap.Optional, mode, pl, len(files))
		case s.Secret != nil:
			name = s.Secret.Name
			got = c.secretFiles(sp.Child("secret"), "name", s.Secret.Name, s.Secret.Items, s.Secret.Optional, mode, pl, len(files))
		case s.DownwardAPI != nil:
			got = c.downwardFiles(sp.Child("downwardAPI"), s.DownwardAPI.Items, mode, pl, len(files))
		}
		for _, f := range got {
			if seen[f.Path] {
				c.is.Field(field.Invalid(p, cmp.Or(name, f.Path), "conflicting duplicate paths"))
				continue
			}
			seen[f.Path] = true
			files = append(files, f)
		}
	}
	return files
}
