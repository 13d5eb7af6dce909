package kube

import (
	"slices"
	"testing"

	"github.com/podlife/podlife/podlife/kube/internal/expand"
	"github.com/podlife/podlife/podlife/kube/internal/report"
)

func TestComparePaths(t *testing.T) {
	list := []string{"spec.containers[10].name", "spec.containers[2].name", "kind", "spec.containers[2]", "metadata.labels[b]", "metadata.labels[a]"}
	slices.SortFunc(list, comparePaths)
	want := []string{"kind", "metadata.labels[a]", "metadata.labels[b]", "spec.containers[2]", "spec.containers[2].name", "spec.containers[10].name"}
	if !slices.Equal(list, want) {
		t.Errorf("sorted %q, want %q", list, want)
	}
}

func TestDocumentString(t *testing.T) {
	for _, tt := range []struct {
		d    Document
		want string
	}{
		{Document{File: "a.yaml", Index: 2, Kind: "Pod", Name: "web"}, "a.yaml#2 Pod/web"},
		{Document{Manifest: 1}, "manifest 1#0"},
		{Document{Index: -1, Kind: "Pod", Name: "web"}, "Pod/web"},
		{Document{Index: 3, Kind: "Service"}, "manifest 0#3 Service"},
	} {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.d, got, tt.want)
		}
	}
	i := Issue{Document: Document{Index: -1, Kind: "Pod", Name: "p"}, Path: "spec.affinity", Message: "Not honoured: x", Severity: Warning}
	if got, want := i.String(), "Pod/p: spec.affinity: Not honoured: x (warning)"; got != want {
		t.Errorf("issue %q, want %q", got, want)
	}
	if Severity(0).String() != "Severity(0)" || Error.String() != "error" {
		t.Error("Severity.String")
	}
	if MaxExpandedString != expand.MaxString || MaxContainerEnvironment != expand.MaxEnvironment || MaxExpansionTotal != expand.MaxTotal {
		t.Error("expand's bounds differ from kube's limits")
	}
	if Severity(report.Warning) != Warning || Severity(report.Error) != Error || report.DocumentPath != DocumentPath {
		t.Error("report's severities and DocumentPath differ from kube's")
	}
}
