package kube_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/podlife/podlife/podlife/kube"
)

// FuzzLoad feeds Load arbitrary manifests: it must not panic, every rejection must be a
// *LoadError whose issues all name a field, every pod it returns must pass podlife's
// validation, and strict mode must reject exactly what has warnings.
func FuzzLoad(f *testing.F) {
	files, err := filepath.Glob("testdata/*.*")
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", "---", "{}", "[]", "kind: Pod", `{"kind":"Pod","apiVersion":"v1"}{"kind":"Secret"}`,
		pod("", "    env: [{name: A, value: $(B)$$(C)}]\n    command: [$(A)]\n"),
		pod("", doublingEnv(8, 20)+"    args: [\"$(A20)$(A20)\", $($($(]\n"),
		pod("", "    env: &e [{name: A, value: &v x}, {name: B, value: *v}]\n    envFrom: [{secretRef: {name: s}}]\n") +
			"---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {k: &k v, l: *k}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		res, err := kube.Load(ctx, kube.Options{}, bytes.NewReader(data))
		if err != nil {
			checkLoadError(t, err)
			return
		}
		for _, p := range res.Pods {
			if err := p.Spec.Validate(); err != nil {
				t.Fatalf("pod %s does not validate: %v", p.Source, err)
			}
		}
		for _, w := range res.Warnings {
			if w.Path == "" || w.Message == "" || w.Severity != kube.Warning {
				t.Fatalf("bad warning %#v", w)
			}
		}
		_, err = kube.Load(ctx, kube.Options{Strict: true}, bytes.NewReader(data))
		if (err != nil) != (len(res.Warnings) > 0) {
			t.Fatalf("strict: error %v with %d warnings", err, len(res.Warnings))
		}
		if err != nil {
			checkLoadError(t, err)
		}
	})
}

func checkLoadError(t *testing.T, err error) {
	t.Helper()
	var le *kube.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error %v (%T) is not a *kube.LoadError", err, err)
	}
	if len(le.Issues) == 0 {
		t.Fatalf("LoadError without issues")
	}
	for _, i := range le.Issues {
		if i.Path == "" || i.Message == "" || i.Severity != kube.Error {
			t.Fatalf("bad issue %#v", i)
		}
	}
	_ = le.Error()
}
