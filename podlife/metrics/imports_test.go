package metrics_test

import (
	"os/exec"
	"strings"
	"testing"
)

// A program that imports only package podlife does not build client_golang: the collector's
// dependency stays in this package.
func TestPodlifeDoesNotImportPrometheus(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/podlife/podlife/podlife").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/prometheus/") {
			t.Errorf("package podlife depends on %s", dep)
		}
	}
}
