package podlife

import (
	"fmt"
	"os"
)

// applyFSGroup gives an emptyDir directory to the pod's fsGroup, as the kubelet's
// SetVolumeOwnership does for a new volume: group fsGroup, group read-write-search and the
// setgid bit, so that what containers create in it belongs to that group too. Without an
// fsGroup it does nothing.
func (s *PodSpec) applyFSGroup(dir string) error {
	if s.SecurityContext == nil || s.SecurityContext.FSGroup == nil {
		return nil
	}
	gid := int(*s.SecurityContext.FSGroup)
	if err := os.Lchown(dir, -1, gid); err != nil {
		return fmt.Errorf("fsGroup: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("fsGroup: %w", err)
	}
	if err := os.Chmod(dir, fi.Mode().Perm()|0o070|os.ModeSetgid); err != nil {
		return fmt.Errorf("fsGroup: %w", err)
	}
	return nil
}
