package lifecycle

import (
	"reflect"

	"github.com/podlife/podlife/hook"
)

// EndsWithContext reports whether h is one of package hook's handlers (exec, httpGet, sleep),
// which return once their context ends; a Go handler (hook.HandlerFunc, or a Handler of another
// package) may not, and its goroutine is abandoned once its context ended (see Hook.Go).
func EndsWithContext(h hook.Handler) bool {
	if _, ok := h.(hook.HandlerFunc); ok {
		return false
	}
	t := reflect.TypeOf(h)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && t.PkgPath() == reflect.TypeFor[hook.HandlerFunc]().PkgPath()
}
