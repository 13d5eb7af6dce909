package main

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/podlife/podlife/examples/node/internal/names"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/reasons"
)

func TestPodlifeName(t *testing.T) {
	long := strings.Repeat("a", 253)
	seen := map[string]string{}
	for _, c := range [][2]string{{"default", "web"}, {"a-b", "c"}, {"a", "b-c"}, {"kube-system", long}, {"ns", "web.v1"}} {
		n := names.Podlife(c[0], c[1])
		if msgs := validation.IsDNS1123Label(n); len(msgs) > 0 {
			t.Errorf("names.Podlife(%q, %q) = %q: %v", c[0], c[1], n, msgs)
		}
		if prev, ok := seen[n]; ok {
			t.Errorf("names.Podlife(%q, %q) = %q, as for %s", c[0], c[1], n, prev)
		}
		seen[n] = c[0] + "/" + c[1]
	}
	if n := names.Podlife("default", "web"); !strings.HasPrefix(n, "default-web-") {
		t.Errorf("names.Podlife(default, web) = %q, want it readable", n)
	}
}

func TestHandledByCluster(t *testing.T) {
	for path, want := range map[string]bool{
		"spec.tolerations":                          true,
		"spec.tolerations[0].key":                   true,
		"spec.nodeSelector[podlife.io/node]":        true,
		"spec.containers[0].tty":                    false,
		"spec.volumes[0].nfs":                       false,
		"spec.nodeSelectorish":                      false,
		"spec.automountServiceAccountToken":         true,
		"spec.affinity.nodeAffinity":                true,
		"spec.topologySpreadConstraints[0]":         true,
		"spec.containers[0].terminationMessagePath": false,
	} {
		if got := handledByCluster(path); got != want {
			t.Errorf("handledByCluster(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestPodStatus(t *testing.T) {
	start := time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)
	st := podlife.PodStatus{
		Phase: podlife.PhaseRunning, PodIP: netip.MustParseAddr("10.88.0.5"), StartTime: start,
		Conditions: []podlife.PodCondition{{Type: "Ready", Status: "True", LastTransitionTime: start}},
		ContainerStatuses: []podlife.ContainerStatus{
			{Name: "app", ContainerID: "containerd://abc", Ready: true, Started: true, RestartCount: 2,
				State:     podlife.ContainerState{Running: &podlife.StateRunning{StartedAt: start}},
				LastState: podlife.ContainerState{Terminated: &podlife.StateTerminated{ExitCode: 1, Reason: reasons.Error}}},
			{Name: "side", State: podlife.ContainerState{Waiting: &podlife.StateWaiting{Reason: reasons.CrashLoopBackOff}}},
		},
	}
	prev := corev1.PodStatus{QOSClass: corev1.PodQOSBestEffort, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}}
	got := podStatus(st, prev, "192.0.2.1")
	if got.Phase != corev1.PodRunning || got.PodIP != "10.88.0.5" || got.HostIP != "192.0.2.1" || got.QOSClass != corev1.PodQOSBestEffort || !got.StartTime.Time.Equal(start) {
		t.Errorf("status %+v", got)
	}
	if len(got.Conditions) != 2 || got.Conditions[0].Type != corev1.PodScheduled || got.Conditions[1].Type != corev1.PodReady {
		t.Errorf("conditions %+v: want PodScheduled kept, then Ready", got.Conditions)
	}
	app, side := got.ContainerStatuses[0], got.ContainerStatuses[1]
	if app.State.Running == nil || app.LastTerminationState.Terminated == nil || app.LastTerminationState.Terminated.Reason != "Error" ||
		app.RestartCount != 2 || !app.Ready || !*app.Started || app.ContainerID != "containerd://abc" {
		t.Errorf("app %+v", app)
	}
	if side.State.Waiting == nil || side.State.Waiting.Reason != "CrashLoopBackOff" {
		t.Errorf("side %+v", side)
	}
	final := terminatedStatus(got)
	if final.Phase != corev1.PodFailed || final.ContainerStatuses[0].State.Terminated == nil || final.ContainerStatuses[0].Ready {
		t.Errorf("terminated status %+v", final)
	}
	for _, c := range final.Conditions {
		if c.Type == corev1.PodReady && c.Status != corev1.ConditionFalse {
			t.Errorf("terminated pod Ready=%s", c.Status)
		}
	}
}
