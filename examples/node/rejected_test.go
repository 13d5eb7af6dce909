package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife"
)

func TestKubeletRejects(t *testing.T) {
	sysctl := field.Forbidden(field.NewPath("spec", "securityContext", "sysctls").Index(0).Child("name"), `unsafe sysctl "kernel.msgmax" is not allowed`)
	other := field.Forbidden(field.NewPath("spec", "hostPID"), "not allowed")
	for _, c := range []struct {
		name   string
		err    error
		reason string
	}{
		{"sysctl", &podlife.ValidationError{Pod: "p", Errs: field.ErrorList{sysctl}}, reasonSysctlForbidden},
		{"wrapped", fmt.Errorf("start: %w", &podlife.ValidationError{Pod: "p", Errs: field.ErrorList{sysctl, sysctl}}), reasonSysctlForbidden},
		{"sysctl and another field", &podlife.ValidationError{Pod: "p", Errs: field.ErrorList{sysctl, other}}, ""},
		{"another field", &podlife.ValidationError{Pod: "p", Errs: field.ErrorList{other}}, ""},
		{"not a validation error", errors.New("boom"), ""},
	} {
		reason, message, ok := kubeletRejects(c.err)
		if reason != c.reason || ok != (c.reason != "") {
			t.Errorf("%s: reason %q ok %v, want %q", c.name, reason, ok, c.reason)
		}
		if ok && (!strings.HasPrefix(message, "forbidden sysctl: ") || !strings.Contains(message, "kernel.msgmax")) {
			t.Errorf("%s: message %q", c.name, message)
		}
	}
}

func TestAdmitOS(t *testing.T) {
	for _, c := range []struct {
		name   string
		pod    corev1.Pod
		reason string
	}{
		{"no os", corev1.Pod{}, ""},
		{"linux", corev1.Pod{Spec: corev1.PodSpec{OS: &corev1.PodOS{Name: corev1.Linux}}}, ""},
		{"windows", corev1.Pod{Spec: corev1.PodSpec{OS: &corev1.PodOS{Name: corev1.Windows}}}, reasonPodOSNotSupported},
		{"windows label", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{corev1.LabelOSStable: "windows"}}}, reasonPodOSSelectorNodeLabelNoMatch},
		{"linux label", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{corev1.LabelOSStable: "linux"}}}, ""},
	} {
		if reason, _ := admitOS(&c.pod); reason != c.reason {
			t.Errorf("%s: reason %q, want %q", c.name, reason, c.reason)
		}
	}
}
