package hostlookup

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/opencontainers/runtime-spec/specs-go"
)

// SeccompProfile reads the Localhost seccomp profile name under root (the Config's
// SeccompProfileRoot). It is opened through an os.Root, so neither ".." nor a symbolic link can
// take it out of the directory.
func SeccompProfile(root, name string) (*specs.LinuxSeccomp, error) {
	if root == "" {
		return nil, fmt.Errorf("seccomp profile %q: Localhost profiles need Config.SeccompProfileRoot", name)
	}
	dir, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("seccomp profile root: %w", err)
	}
	defer dir.Close()
	data, err := dir.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("seccomp profile %q: %w", name, err)
	}
	var profile specs.LinuxSeccomp
	if err := json.Unmarshal(data, &profile); err != nil {
		return nil, fmt.Errorf("seccomp profile %q: decode: %w", name, err)
	}
	return &profile, nil
}
