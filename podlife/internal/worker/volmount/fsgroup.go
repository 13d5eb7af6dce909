package volmount

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/podlife/podlife/podlife/internal/api"
)

// ApplyFSGroup gives a volume podlife made (an emptyDir, a files volume) to the pod's fsGroup,
// as the kubelet's SetVolumeOwnership does: every file and directory gets group fsGroup and
// group read-write (read-only for a read-only volume), directories also group search and the
// setgid bit, so that what containers create in them belongs to the group too. Symbolic links
// are neither followed nor changed in mode. Without an fsGroup it does nothing. It runs when the
// sandbox is created, before any container of the pod exists, so no container can swap a path
// for a link meanwhile.
func ApplyFSGroup(s *api.PodSpec, dir string, readOnly bool) error {
	if s.SecurityContext == nil || s.SecurityContext.FSGroup == nil {
		return nil
	}
	gid := int(*s.SecurityContext.FSGroup)
	mask := fs.FileMode(0o060)
	if readOnly {
		mask = 0o040
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(path, -1, gid); err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		m := fi.Mode().Perm() | mask
		if d.IsDir() {
			m |= 0o010 | os.ModeSetgid
		}
		return os.Chmod(path, m|fi.Mode()&(os.ModeSticky|os.ModeSetuid))
	})
	if err != nil {
		return fmt.Errorf("fsGroup: %w", err)
	}
	return nil
}
