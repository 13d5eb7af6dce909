package env

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube/internal/expand"
	"github.com/podlife/podlife/podlife/kube/internal/report"
)

// TestResolverAlone: a Resolver works from a Pod of plain values: envFrom, then env in
// order with $(VAR) expanded from what precedes, a downward field, a field of the running
// pod, and the Service variables last; a subPathExpr that names the running pod's field is
// reported, not expanded.
func TestResolverAlone(t *testing.T) {
	var is report.List
	mapped := map[string]string{}
	r := New(Pod{
		Name: "web", Namespace: "ns", Labels: map[string]string{"app": "a"},
		Spec:       &corev1.PodSpec{},
		ServiceEnv: map[string]string{"DB_SERVICE_HOST": "10.0.0.5", "A": "service"},
		ConfigMap: func(name string) *corev1.ConfigMap {
			if name != "cm" {
				return nil
			}
			return &corev1.ConfigMap{Data: map[string]string{"A": "from-cm"}}
		},
		SecretData: func(string) map[string]string { return nil },
		MapPath:    func(pl string, p *field.Path) { mapped[pl] = p.String() },
	}, expand.Expander{Budget: expand.NewBudget(), Issues: &is})
	ct := &corev1.Container{
		EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}},
		Env: []corev1.EnvVar{
			{Name: "B", Value: "$(A)-$(DB_SERVICE_HOST)"},
			{Name: "NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['app']"}}},
			{Name: "IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
		},
	}
	p := field.NewPath("spec", "containers").Index(0)
	list, e, stopped := r.Env(ct, p, "spec.containers[0]")
	if stopped || len(is.Entries()) > 0 {
		t.Fatalf("stopped %v, issues %v", stopped, is.Entries())
	}
	want := []podlife.EnvVar{{Name: "A", Value: "from-cm"}, {Name: "B", Value: "from-cm-10.0.0.5"},
		{Name: "NAME", Value: "a"}, {Name: "IP", From: "status.podIP"}, {Name: "DB_SERVICE_HOST", Value: "10.0.0.5"}}
	if !slices.Equal(list, want) {
		t.Errorf("env %v, want %v", list, want)
	}
	if mapped["spec.containers[0].env[1]"] != "spec.containers[0].env[0]" {
		t.Errorf("paths mapped %v", mapped)
	}
	sub := r.SubPathExpr(p.Child("volumeMounts").Index(0).Child("subPathExpr"), "$(NAME)/$(IP)", e)
	if sub != "a/$(IP)" || len(is.Entries()) != 1 || !strings.Contains(is.Entries()[0].Message, "$(IP)") {
		t.Errorf("subPathExpr %q, issues %v", sub, is.Entries())
	}
}
