package podlifetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// registryConfig returns the docker-registry (distribution 2.x)
// configuration for one listening on addr with storage in dataDir and, if
// htpasswd is not empty, basic auth from that file. Strings are written as
// JSON, which YAML reads as well.
func registryConfig(addr, dataDir, htpasswd string) string {
	q := func(s string) string {
		b, _ := json.Marshal(s) // a string always marshals
		return string(b)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "version: 0.1\nlog:\n  level: info\n  accesslog:\n    disabled: true\n")
	fmt.Fprintf(&b, "storage:\n  filesystem:\n    rootdirectory: %s\n  delete:\n    enabled: true\n", q(dataDir))
	fmt.Fprintf(&b, "http:\n  addr: %s\n", q(addr))
	if htpasswd != "" {
		fmt.Fprintf(&b, "auth:\n  htpasswd:\n    realm: podlifetest\n    path: %s\n", q(htpasswd))
	}
	return b.String()
}

// writeHtpasswd writes a bcrypt htpasswd file for creds at path, with the
// htpasswd tool (apache2-utils).
func writeHtpasswd(path string, creds Credentials) error {
	var stderr bytes.Buffer
	cmd := exec.Command("htpasswd", "-Bbn", creds.Username, creds.Password)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("htpasswd: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	line := strings.TrimSpace(string(out)) + "\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		return fmt.Errorf("write htpasswd: %w", err)
	}
	return nil
}
