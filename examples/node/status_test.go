package main

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestObserved(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Generation: 3}, Status: corev1.PodStatus{Conditions: []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue},
	}}}
	observed(pod)
	if pod.Status.ObservedGeneration != 3 {
		t.Errorf("status.observedGeneration %d, want 3", pod.Status.ObservedGeneration)
	}
	if g := pod.Status.Conditions[0].ObservedGeneration; g != 0 {
		t.Errorf("PodScheduled's observedGeneration %d: the scheduler's, want it untouched", g)
	}
	if g := pod.Status.Conditions[1].ObservedGeneration; g != 3 {
		t.Errorf("Ready's observedGeneration %d, want 3", g)
	}
}
