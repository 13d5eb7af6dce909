package kube_test

import (
	"testing"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
)

// TestTerminationMessage: terminationMessagePath and terminationMessagePolicy are converted
// without a warning; the API's defaults stay empty (podlife's defaults, and the spec
// fingerprints of pods recorded before the fields existed); a relative path is refused.
func TestTerminationMessage(t *testing.T) {
	tests := []struct {
		name      string
		container string
		path      string
		policy    podlife.TerminationMessagePolicy
	}{
		{"unset", "", "", ""},
		{"API defaults", "    terminationMessagePath: /dev/termination-log\n    terminationMessagePolicy: File\n", "", ""},
		{"custom", "    terminationMessagePath: /dev/termination-custom-log\n    terminationMessagePolicy: FallbackToLogsOnError\n",
			"/dev/termination-custom-log", podlife.TerminationMessageFallbackToLogsOnError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := loadString(kube.Options{Strict: true}, pod("", tc.container))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) > 0 {
				t.Errorf("warnings: %v", res.Warnings)
			}
			c := onePod(t, res).Containers[0]
			if c.TerminationMessagePath != tc.path || c.TerminationMessagePolicy != tc.policy {
				t.Errorf("path %q policy %q, want %q %q", c.TerminationMessagePath, c.TerminationMessagePolicy, tc.path, tc.policy)
			}
		})
	}
	_, err := loadString(kube.Options{}, pod("", "    terminationMessagePath: relative/log\n"))
	if err == nil {
		t.Fatal("a relative terminationMessagePath was accepted")
	}
	if got := paths(loadErrors(t, err)); len(got) != 1 || got[0] != "spec.containers[0].terminationMessagePath" {
		t.Errorf("error paths %v, want spec.containers[0].terminationMessagePath", got)
	}
}
