package podlife

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/opencontainers/runtime-spec/specs-go"
)

// loadSeccompProfile reads a Localhost seccomp profile under SeccompProfileRoot. It is opened
// through an os.Root, so neither ".." nor a symbolic link can take it out of the directory.
func (c *Config) loadSeccompProfile(name string) (*specs.LinuxSeccomp, error) {
	if c.SeccompProfileRoot == "" {
		return nil, fmt.Errorf("seccomp profile %q: Localhost profiles need Config.SeccompProfileRoot", name)
	}
	root, err := os.OpenRoot(c.SeccompProfileRoot)
	if err != nil {
		return nil, fmt.Errorf("seccomp profile root: %w", err)
	}
	defer root.Close()
	data, err := root.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("seccomp profile %q: %w", name, err)
	}
	var profile specs.LinuxSeccomp
	if err := json.Unmarshal(data, &profile); err != nil {
		return nil, fmt.Errorf("seccomp profile %q: decode: %w", name, err)
	}
	return &profile, nil
}
