package ctrd

import (
	"testing"

	"github.com/containerd/containerd/v2/pkg/filters"
)

// A label filter's value is quoted: one with the filter syntax's operators in it matches that
// value only, and adds no clause.
func TestLabelFilterQuoted(t *testing.T) {
	type obj map[string]string
	adapt := func(labels obj) filters.Adaptor {
		return filters.AdapterFunc(func(fieldpath []string) (string, bool) {
			if len(fieldpath) == 2 && fieldpath[0] == "labels" {
				v, ok := labels[fieldpath[1]]
				return v, ok
			}
			return "", false
		})
	}
	for _, v := range []string{"plain", `a"b`, `x,labels."k"==y`, `a\b`, "new\nline", "sp ace", "é", `"`, "", "/re/", "a|b"} {
		f, err := filters.Parse(labelFilter("io.podlife.x", v))
		if err != nil {
			t.Errorf("labelFilter(%q) = %s does not parse: %v", v, labelFilter("io.podlife.x", v), err)
			continue
		}
		if !f.Match(adapt(obj{"io.podlife.x": v})) {
			t.Errorf("filter %s does not match its value %q", labelFilter("io.podlife.x", v), v)
		}
		if f.Match(adapt(obj{"io.podlife.x": v + "z", "k": "y"})) {
			t.Errorf("filter %s matches another value", labelFilter("io.podlife.x", v))
		}
	}
}
