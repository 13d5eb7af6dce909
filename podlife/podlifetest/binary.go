package podlifetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ContainerdBinary returns the containerd a test run uses: $PODLIFE_TEST_CONTAINERD if set, else
// cached (a path relative to the test's directory, such as the repository's
// .cache/bin/containerd) if it exists, else containerd in PATH. The error says none was found.
func ContainerdBinary(cached string) (string, error) {
	if bin := os.Getenv("PODLIFE_TEST_CONTAINERD"); bin != "" {
		return bin, nil
	}
	if cached != "" {
		if p, err := filepath.Abs(cached); err == nil {
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
	}
	p, err := exec.LookPath("containerd")
	if err != nil {
		return "", fmt.Errorf("no containerd binary (set PODLIFE_TEST_CONTAINERD): %w", err)
	}
	return p, nil
}

// LoggerPackage is the import path of podlife's container logger command.
const LoggerPackage = "github.com/podlife/podlife/internal/cmd/podlife-logger"

// ContainerLogger returns a podlife container logger binary for Config.ContainerLogger:
// $PODLIFE_TEST_LOGGER if set, else one built (`go build` of LoggerPackage) into dir.
func ContainerLogger(dir string) (string, error) {
	if bin := os.Getenv("PODLIFE_TEST_LOGGER"); bin != "" {
		return bin, nil
	}
	bin, err := filepath.Abs(filepath.Join(dir, "podlife-logger"))
	if err != nil {
		return "", err
	}
	if out, err := exec.Command("go", "build", "-o", bin, LoggerPackage).CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the container logger: %w\n%s", err, out)
	}
	return bin, nil
}

// ExecGatePackage is the import path of podlife's exec gate command (Config.ExecGate).
const ExecGatePackage = "github.com/podlife/podlife/internal/cmd/podlife-execgate"

// ExecGate returns an exec gate binary for Config.ExecGate: $PODLIFE_TEST_EXECGATE if set, else
// one built (`CGO_ENABLED=0 go build` of ExecGatePackage: it must be statically linked) into dir.
func ExecGate(dir string) (string, error) {
	if bin := os.Getenv("PODLIFE_TEST_EXECGATE"); bin != "" {
		return bin, nil
	}
	bin, err := filepath.Abs(filepath.Join(dir, "podlife-execgate"))
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, ExecGatePackage)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the exec gate: %w\n%s", err, out)
	}
	return bin, nil
}
