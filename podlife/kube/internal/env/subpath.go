package env

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife/kube/internal/expand"
)

// SubPathExpr expands a subPathExpr as the kubelet does: a variable that is undefined or
// empty is an error.
func (c *Resolver) SubPathExpr(p *field.Path, expr string, e *Environment) string {
	missing := map[string]bool{}
	lookup := c.Lookup(p, e)
	sub, hit := c.x.At(p, expr, func(name string) (string, bool) {
		v, _ := lookup(name)
		if _, ok := e.runtime[name]; ok {
			return "$(" + name + ")", true // reported by lookup
		}
		if v == "" {
			missing[name] = true
		}
		return v, true
	}, expand.NoRoom)
	switch {
	case hit != expand.Fits:
		return ""
	case len(missing) > 0:
		names := slices.Sorted(maps.Keys(missing))
		c.is.Field(field.Invalid(p, expr, "missing value for "+strings.Join(names, ", ")))
	}
	return sub
}
