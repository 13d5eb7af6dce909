package kube

import (
	"errors"
	"strings"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube/internal/report"
)

// validate runs podlife's own validation on the converted spec and reports its errors at
// their paths in the document, skipping those already reported by the conversion.
func (c *converter) validate() {
	err := c.out.Validate()
	if err == nil {
		return
	}
	var ve *podlife.ValidationError
	if !errors.As(err, &ve) {
		c.is.Errorf(c.specPath, "Invalid value: %v", err)
		return
	}
	// Only the conversion's issues hide validation's: several errors at one path (a name
	// both missing and not found) are all reported, as the API server does. So all are
	// checked before any is added.
	type found struct{ path, body string }
	var add []found
	for _, fe := range ve.Errs {
		path := c.documentPath(fe.Field)
		if !c.is.Covered(path) {
			add = append(add, found{path, fe.ErrorBody()})
		}
	}
	for _, f := range add {
		c.is.AddAt(report.Error, f.path, f.body)
	}
}

// documentPath maps a path of podlife's validation (rooted at "metadata" and "spec" of the
// PodSpec) to the path of the field in the document.
func (c *converter) documentPath(pl string) string {
	best := ""
	for k := range c.pathMap {
		if len(k) > len(best) && hasPathPrefix(pl, k) {
			best = k
		}
	}
	if best != "" {
		return c.pathMap[best] + pl[len(best):]
	}
	switch {
	case hasPathPrefix(pl, "metadata.name"):
		return c.src.namePath.String() + pl[len("metadata.name"):]
	case hasPathPrefix(pl, "metadata.namespace"):
		return "metadata.namespace" + pl[len("metadata.namespace"):]
	case hasPathPrefix(pl, "metadata"):
		return c.metaPath.String() + pl[len("metadata"):]
	case hasPathPrefix(pl, "spec"):
		return c.specPath.String() + pl[len("spec"):]
	}
	return pl
}

// hasPathPrefix tells whether path is prefix or a field, index or key under it.
func hasPathPrefix(path, prefix string) bool {
	if !strings.HasPrefix(path, prefix) {
		return false
	}
	rest := path[len(prefix):]
	return rest == "" || rest[0] == '.' || rest[0] == '['
}
