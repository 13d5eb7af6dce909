package hostlookup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// PauseBinary returns the pause binary to run: configured (the Config's PauseBinary) if set and
// present, else catatonit from PATH or where podman's packages install it.
func PauseBinary(configured string) (string, error) {
	if configured != "" {
		if _, err := os.Stat(configured); err != nil {
			return "", fmt.Errorf("%w: %w", ErrNoPauseBinary, err)
		}
		return configured, nil
	}
	if p, err := exec.LookPath("catatonit"); err == nil {
		return filepath.Abs(p)
	}
	if _, err := os.Stat(podmanCatatonit); err == nil {
		return podmanCatatonit, nil
	}
	return "", ErrNoPauseBinary
}

// podmanCatatonit is where podman's packages install catatonit.
const podmanCatatonit = "/usr/libexec/podman/catatonit"

// ErrNoPauseBinary is wrapped by the start error of a pod with ShareProcessNamespace when no
// pause binary is found (see the Config's PauseBinary).
var ErrNoPauseBinary = errors.New("no pause binary: install catatonit (Debian: apt-get install catatonit) or set Config.PauseBinary")
