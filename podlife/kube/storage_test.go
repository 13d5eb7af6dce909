package kube_test

import (
	"testing"

	"github.com/podlife/podlife/podlife/kube"
)

// TestLocalStorageLimits: a disk emptyDir's sizeLimit and a container's ephemeral-storage limit
// convert to the fields podlife enforces by eviction, with no warning.
func TestLocalStorageLimits(t *testing.T) {
	res, err := loadString(kube.Options{Strict: true}, pod("  volumes: [{name: v, emptyDir: {sizeLimit: 20Mi}}]\n",
		"    resources: {limits: {ephemeral-storage: 1G}, requests: {ephemeral-storage: 500M}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %v", res.Warnings)
	}
	spec := onePod(t, res)
	check(t, "sizeLimit", spec.Volumes[0].EmptyDir.SizeLimit, int64(20<<20))
	check(t, "ephemeral-storage", spec.Containers[0].Resources.EphemeralStorageLimit, int64(1e9))

	_, err = loadString(kube.Options{}, pod("", "    resources: {limits: {ephemeral-storage: 1Mi}, requests: {ephemeral-storage: 2Mi}}\n"))
	checkSlice(t, "request above limit", paths(loadErrors(t, err)), []string{"spec.containers[0].resources.requests"})
}
