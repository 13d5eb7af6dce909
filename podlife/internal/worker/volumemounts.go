package worker

import (
	. "github.com/podlife/podlife/podlife/internal/api"

	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/opencontainers/runtime-spec/specs-go"
	"github.com/podlife/podlife/podlife/internal/hostmount"
	"github.com/podlife/podlife/podlife/internal/ocibuild"
)

// mountSource is what a volumeMount mounts: a volume's directory on the host, or a path inside it.
type mountSource struct {
	root     string          // the volume's directory (or file) on the host
	hostPath *HostPathVolume // the volume's hostPath, nil for the pod's own volumes
	subPath  string          // relative to root; empty for root itself
}

// privateMounts are the mount points one instance's create takes its volumes from: each is a
// bind mount of an object opened safely (see safeMount), under the pod's directory. runc makes
// its own bind mounts from them during the create; release unmounts them then.
type privateMounts struct {
	dir    string
	points []string
	fields []string // the volumeMount of each point, for errors
}

// volumeMounts returns the OCI mounts of the container's volumeMounts for instance id. A source
// a container could swap under podlife's feet (a subPath inside a volume it may write, a
// hostPath whose path crosses directories others may write) is resolved without following a
// link out of its volume, checked, and bind-mounted onto a private point that runc mounts from:
// what was checked is what runc mounts. The caller releases the private mounts once the
// container's task is created.
func (c *Container) volumeMounts(id string) ([]specs.Mount, *privateMounts, error) {
	p := c.pod
	pm := &privateMounts{dir: filepath.Join(p.sandbox.Dir(), "subpaths", id)}
	var out []specs.Mount
	for i, m := range c.spec.VolumeMounts {
		ro := m.ReadOnly || p.volumeReadOnly(m.Name)
		hp := p.hostPathVolume(m.Name)
		if hp == nil && m.SubPath == "" {
			out = append(out, ocibuild.BindMount(p.sandbox.VolumeDir(m.Name), m.MountPath, ro))
			continue
		}
		if len(pm.points) == 0 {
			if err := os.MkdirAll(pm.dir, 0o700); err != nil {
				return nil, nil, fmt.Errorf("volume mounts: %w", err)
			}
		}
		field := fmt.Sprintf("volumeMounts[%d]", i)
		if m.SubPath != "" {
			field += ".subPath"
		}
		field = fmt.Sprintf("%s (volume %q at %s)", field, m.Name, m.MountPath)
		target := filepath.Join(pm.dir, strconv.Itoa(i))
		pm.points, pm.fields = append(pm.points, target), append(pm.fields, field)
		src := mountSource{root: p.volumeSource(m.Name), hostPath: hp, subPath: m.SubPath}
		if err := safeMount(src, target); err != nil {
			err = fmt.Errorf("%s: %w", field, err)
			if rerr := pm.release(); rerr != nil {
				err = errors.Join(err, rerr)
			}
			return nil, nil, err
		}
		out = append(out, ocibuild.BindMount(target, m.MountPath, ro))
	}
	return out, pm, nil
}

// release unmounts and removes the private mount points. A point is removed only once nothing
// is mounted on it (never a recursive removal, which could reach into a volume).
func (pm *privateMounts) release() error {
	if pm == nil || len(pm.points) == 0 {
		return nil
	}
	var errs []error
	for _, pt := range pm.points {
		if err := hostmount.UnmountLazy(pt); err != nil {
			errs = append(errs, fmt.Errorf("unmount %s: %w", pt, err))
			continue
		}
		if err := os.Remove(pt); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		if err := os.Remove(pm.dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// explain names the volumeMount in a create error about one of the private mount points (runc
// could not mount from it: what it showed was removed while the container was created).
func (pm *privateMounts) explain(err error) error {
	if pm == nil {
		return err
	}
	for i, pt := range pm.points {
		if strings.Contains(err.Error(), pt+`"`) || strings.Contains(err.Error(), pt+":") {
			return fmt.Errorf("%s: removed or replaced during the create: %w", pm.fields[i], err)
		}
	}
	return err
}

// hostPathVolume returns the named volume's hostPath, nil if it is not a hostPath volume.
func (p *Worker) hostPathVolume(name string) *HostPathVolume {
	for _, v := range p.spec.Volumes {
		if v.Name == name {
			return v.HostPath
		}
	}
	return nil
}
