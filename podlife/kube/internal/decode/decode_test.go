package decode

import "testing"

func TestParsePath(t *testing.T) {
	for _, s := range []string{"spec.containers[0].image", "metadata.labels[app]", "a", "spec.x[12][3].y"} {
		if got := parsePath(s).String(); got != s {
			t.Errorf("parsePath(%q) = %q", s, got)
		}
	}
}
