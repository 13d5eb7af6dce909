package apicheck

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife/kube/internal/report"
)

// TestDroppedAlone: a field podlife drops is still checked as the API server does, at its
// path under the spec's; a valid one raises nothing.
func TestDroppedAlone(t *testing.T) {
	var is report.List
	Dropped(&corev1.PodSpec{NodeName: "node-1", PriorityClassName: "Not_A_Name"}, field.NewPath("spec", "template", "spec"), &is)
	got := is.Entries()
	if len(got) != 1 || got[0].Path != "spec.template.spec.priorityClassName" || got[0].Severity != report.Error {
		t.Errorf("issues %v", got)
	}
}
