package nodestatus

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// A taint is "key[=value]:Effect", as kubectl taint takes it.
func TestParseTaint(t *testing.T) {
	tt, err := ParseTaint("podlife.io/node=true:NoSchedule")
	if err != nil || tt.Key != "podlife.io/node" || tt.Value != "true" || tt.Effect != corev1.TaintEffectNoSchedule {
		t.Errorf("ParseTaint = %+v, %v", tt, err)
	}
	if tt, err := ParseTaint("dedicated:NoExecute"); err != nil || tt.Key != "dedicated" || tt.Value != "" {
		t.Errorf("ParseTaint(dedicated:NoExecute) = %+v, %v", tt, err)
	}
	for _, bad := range []string{"novalue", "k=v:Sometimes"} {
		if _, err := ParseTaint(bad); err == nil {
			t.Errorf("ParseTaint(%q): no error", bad)
		}
	}
}
