package restarting_test

import (
	"testing"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/worker/restarting"
)

func TestShouldRestart(t *testing.T) {
	never := &api.ContainerSpec{Name: "c", RestartPolicy: api.RestartNever}
	plain := &api.ContainerSpec{Name: "c"}
	for _, tc := range []struct {
		name string
		kind restarting.Kind
		spec *api.ContainerSpec
		pod  api.RestartPolicy
		code int
		want bool
	}{
		{"ephemeral never", restarting.Kind{Ephemeral: true}, plain, api.RestartAlways, 1, false},
		{"sidecar always", restarting.Kind{Init: true, Sidecar: true}, plain, api.RestartNever, 0, true},
		{"init completed", restarting.Kind{Init: true}, plain, api.RestartAlways, 0, false},
		{"init failed, pod OnFailure", restarting.Kind{Init: true}, plain, api.RestartOnFailure, 1, true},
		{"resizing restarts whatever its policy", restarting.Kind{Resizing: true}, never, api.RestartNever, 0, true},
		{"container policy Never", restarting.Kind{}, never, api.RestartAlways, 1, false},
		{"pod OnFailure, success", restarting.Kind{}, plain, api.RestartOnFailure, 0, false},
		{"pod Always, success", restarting.Kind{}, plain, api.RestartAlways, 0, true},
	} {
		if got := restarting.ShouldRestart(tc.kind, tc.spec, tc.pod, tc.code); got != tc.want {
			t.Errorf("%s: ShouldRestart = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got, want := restarting.BackoffKey("uid", "c"), "uid/c"; got != want {
		t.Errorf("BackoffKey = %q, want %q (the key persisted in supervision.json's back-off)", got, want)
	}
}
