package podlife

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// pauseBinary returns the pause binary to run (see Config.PauseBinary).
func (c *Config) pauseBinary() (string, error) {
	if c.PauseBinary != "" {
		if _, err := os.Stat(c.PauseBinary); err != nil {
			return "", fmt.Errorf("%w: %w", errNoPauseBinary, err)
		}
		return c.PauseBinary, nil
	}
	if p, err := exec.LookPath("catatonit"); err == nil {
		return filepath.Abs(p)
	}
	if _, err := os.Stat(podmanCatatonit); err == nil {
		return podmanCatatonit, nil
	}
	return "", errNoPauseBinary
}

// podmanCatatonit is where podman's packages install catatonit.
const podmanCatatonit = "/usr/libexec/podman/catatonit"

// errNoPauseBinary is wrapped by the start error of a pod with ShareProcessNamespace when no
// pause binary is found (see Config.PauseBinary).
var errNoPauseBinary = errors.New("no pause binary: install catatonit (Debian: apt-get install catatonit) or set Config.PauseBinary")
