// Package cnipath tells the tests, examples and tools of this repository
// where the CNI plugins to use are: `make` builds the plugins pinned in
// go.mod (the tool directives of github.com/containernetworking/plugins)
// into .cache/cni/bin and points $PODLIFE_CNI_PATH at that directory. The
// library itself reads no environment; callers pass the result as
// cni.BridgeConfig.PluginDirs.
//
// It imports nothing of this repository and must not import package podlife.
package cnipath

import (
	"os"
	"path/filepath"
)

// EnvVar names the variable holding the plugin directories, a list in the
// form of PATH.
const EnvVar = "PODLIFE_CNI_PATH"

// Dirs returns the directories of $PODLIFE_CNI_PATH if it is set, else
// cached (a path relative to the working directory, such as a test's
// "../.cache/cni/bin") made absolute if it is a directory, else nil, with
// which the cni package searches its default directories.
func Dirs(cached string) []string {
	if v := os.Getenv(EnvVar); v != "" {
		return filepath.SplitList(v)
	}
	if cached == "" {
		return nil
	}
	p, err := filepath.Abs(cached)
	if err != nil {
		return nil
	}
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return nil
	}
	return []string{p}
}
