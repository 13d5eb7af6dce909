package kube_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
	"github.com/podlife/podlife/probe"
)

// loadFile loads testdata files and fails the test on an error.
func loadFile(t *testing.T, opts kube.Options, names ...string) *kube.Result {
	t.Helper()
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join("testdata", n)
	}
	res, err := kube.LoadFiles(context.Background(), opts, paths...)
	if err != nil {
		t.Fatalf("LoadFiles(%v): %v", names, err)
	}
	return res
}

// loadString loads one manifest given as a string.
func loadString(opts kube.Options, manifest string) (*kube.Result, error) {
	return kube.Load(context.Background(), opts, strings.NewReader(manifest))
}

// onePod returns the single pod of a result.
func onePod(t *testing.T, res *kube.Result) podlife.PodSpec {
	t.Helper()
	if len(res.Pods) != 1 {
		t.Fatalf("got %d pods, want 1", len(res.Pods))
	}
	return res.Pods[0].Spec
}

// admitted is the one pod's spec as podlife runs it: with podlife's defaults, the API
// server's, which the conversion leaves to podlife (podlife.PodSpec.WithDefaults).
func admitted(t *testing.T, res *kube.Result) podlife.PodSpec {
	t.Helper()
	return onePod(t, res).WithDefaults()
}

// loadErrors returns the issues of a *LoadError, failing the test on another error.
func loadErrors(t *testing.T, err error) []kube.Issue {
	t.Helper()
	var le *kube.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error %v (%T) is not a *kube.LoadError", err, err)
	}
	if !errors.Is(err, podlife.ErrInvalidSpec) {
		t.Errorf("errors.Is(%v, podlife.ErrInvalidSpec) = false", err)
	}
	return le.Issues
}

// paths returns the sorted, distinct paths of issues.
func paths(is []kube.Issue) []string {
	var out []string
	for _, i := range is {
		out = append(out, i.Path)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// dump renders a pod spec as text, field by field, with hooks and probes described and zero
// fields left out, for golden comparisons.
func dump(spec podlife.PodSpec) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(spec), "")
	return b.String()
}

var (
	handlerType = reflect.TypeFor[hook.Handler]()
	proberType  = reflect.TypeFor[probe.Prober]()
)

func dumpValue(b *strings.Builder, v reflect.Value, path string) {
	if !v.IsValid() || v.IsZero() {
		return
	}
	switch {
	case v.Type() == handlerType:
		fmt.Fprintf(b, "%s: %s\n", path, hook.Describe(v.Interface().(hook.Handler)))
		return
	case v.Type() == proberType:
		fmt.Fprintf(b, "%s: %s\n", path, probe.Describe(v.Interface().(probe.Prober)))
		return
	case v.Type() == reflect.TypeFor[time.Duration]():
		fmt.Fprintf(b, "%s: %v\n", path, v.Interface())
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		dumpValue(b, v.Elem(), path)
	case reflect.Struct:
		for i := range v.NumField() {
			p := v.Type().Field(i).Name
			if path != "" {
				p = path + "." + p
			}
			dumpValue(b, v.Field(i), p)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			fmt.Fprintf(b, "%s: %q\n", path, v.Bytes())
			return
		}
		for i := range v.Len() {
			dumpValue(b, v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			dumpValue(b, v.MapIndex(k), fmt.Sprintf("%s[%s]", path, k))
		}
	case reflect.Uint32:
		if v.Type().Name() == "FileMode" {
			fmt.Fprintf(b, "%s: %#o\n", path, v.Uint())
			return
		}
		fmt.Fprintf(b, "%s: %v\n", path, v.Interface())
	default:
		fmt.Fprintf(b, "%s: %v\n", path, v.Interface())
	}
}

// newServer starts an HTTP server on 127.0.0.1 that reports each request's method, path
// and query, and X-Probe header; it returns the server's port.
func newServer(t *testing.T, report func(method, path, header string)) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		report(r.Method, r.URL.RequestURI(), r.Header.Get("X-Probe"))
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port
}
