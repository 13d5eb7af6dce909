package cni

import (
	"errors"
	"fmt"
	"os"

	"github.com/containernetworking/cni/pkg/invoke"
)

// defaultPluginDirs are the usual places CNI plugin binaries are installed.
func defaultPluginDirs() []string {
	return []string{"/opt/cni/bin", "/usr/lib/cni", "/usr/libexec/cni"}
}

// existingDirs keeps the directories of dirs that exist.
func existingDirs(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			out = append(out, d)
		}
	}
	return out
}

// checkPluginDirs requires at least one directory and every directory to
// exist.
func checkPluginDirs(dirs []string) error {
	if len(dirs) == 0 {
		return fmt.Errorf("no plugin directory found (searched %v)", defaultPluginDirs())
	}
	var errs []error
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err == nil && !st.IsDir() {
			err = errors.New("not a directory")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("plugin dir %s: %w", d, err))
		}
	}
	return errors.Join(errs...)
}

// findPlugins checks that every plugin type has a binary in dirs.
func findPlugins(dirs []string, types ...string) error {
	var errs []error
	for _, t := range types {
		if _, err := invoke.FindInPath(t, dirs); err != nil {
			errs = append(errs, fmt.Errorf("plugin %q not found in %v", t, dirs))
		}
	}
	return errors.Join(errs...)
}
