package kube

import "testing"

// podHostname cuts as the kubelet's truncatePodHostnameIfNeeded: its own test cases
// (pkg/kubelet/kubelet_pods_test.go TestTruncatePodHostname) and a pod name.
func TestPodHostname(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"valid hostname":      {"test.pod.hostname", "test.pod.hostname"},
		"too long hostname":   {"1234567.1234567.1234567.1234567.1234567.1234567.1234567.1234567.1234567.", "1234567.1234567.1234567.1234567.1234567.1234567.1234567.1234567"},
		"hostname end with .": {"1234567.1234567.1234567.1234567.1234567.1234567.1234567.123456.1234567.", "1234567.1234567.1234567.1234567.1234567.1234567.1234567.123456"},
		"hostname end with -": {"1234567.1234567.1234567.1234567.1234567.1234567.1234567.123456-1234567.", "1234567.1234567.1234567.1234567.1234567.1234567.1234567.123456"},
		"63 characters kept":  {"a23456789b23456789c23456789d23456789e23456789f23456789g23456789", "a23456789b23456789c23456789d23456789e23456789f23456789g23456789"},
		"64th cut, dashes":    {"a23456789b23456789c23456789d23456789e23456789f23456789g23456---xyz", "a23456789b23456789c23456789d23456789e23456789f23456789g23456"},
	} {
		if got := podHostname(tc.in); got != tc.want {
			t.Errorf("%s: podHostname(%q) = %q, want %q", name, tc.in, got, tc.want)
		}
	}
}
