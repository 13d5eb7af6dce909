package report

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestCovered: an error covers its path and the paths under it, not a sibling's.
func TestCovered(t *testing.T) {
	var is List
	is.Errorf(field.NewPath("spec"), "x")
	if !is.Covered("spec.containers[0]") || is.Covered("specs") {
		t.Error("covered")
	}
	is.Warnf(field.NewPath("metadata"), "y")
	if is.Covered("metadata") || len(is.Entries()) != 2 || !is.HasErrors() {
		t.Errorf("entries %v", is.Entries())
	}
}
