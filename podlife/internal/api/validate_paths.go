package api

import (
	"path"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The API server's rules for paths inside a volume (pkg/apis/core/validation:
// validatePathNoBacksteps, validateLocalDescendingPath, ValidateLocalNonReservedPath), with
// its messages.

// validateNoBacksteps refuses a path with a ".." element.
func validateNoBacksteps(p *field.Path, s string) field.ErrorList {
	if slices.Contains(strings.Split(s, "/"), "..") {
		return field.ErrorList{field.Invalid(p, s, "must not contain '..'")}
	}
	return nil
}

// validateLocalDescendingPath refuses an absolute path or one with a ".." element.
func validateLocalDescendingPath(p *field.Path, s string) field.ErrorList {
	var errs field.ErrorList
	if path.IsAbs(s) {
		errs = append(errs, field.Invalid(p, s, "must be a relative path"))
	}
	return append(errs, validateNoBacksteps(p, s)...)
}

// validateLocalNonReservedPath is validateLocalDescendingPath for a file of a volume, which
// must be named and may not start with ".." either (the kubelet's ..data directories).
func validateLocalNonReservedPath(p *field.Path, s string) field.ErrorList {
	if s == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	errs := validateLocalDescendingPath(p, s)
	if strings.HasPrefix(s, "..") && !strings.HasPrefix(s, "../") {
		errs = append(errs, field.Invalid(p, s, "must not start with '..'"))
	}
	return errs
}

// inSeconds reports a whole number of seconds as the API's integer fields hold it; other
// values are returned as they are.
func inSeconds(v any) any {
	if d, ok := v.(time.Duration); ok && d%time.Second == 0 {
		return int64(d / time.Second)
	}
	return v
}
