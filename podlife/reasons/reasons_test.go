package reasons

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Every reason of podlife's vocabulary (a Reason constant of podlife/internal/api) is here, under
// its name without the prefix, and a few keep the kubelet's spelling where it is not their name.
func TestEveryReason(t *testing.T) {
	declared := reasonConsts(t, "../internal/api", func(name string) bool { return strings.HasPrefix(name, "Reason") })
	here := reasonConsts(t, ".", func(string) bool { return true })
	var missing []string
	for name := range declared {
		if _, ok := here[strings.TrimPrefix(name, "Reason")]; !ok {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("api declares reasons that package reasons lacks: %v", missing)
	}
	if Evicted != "Evicted" || FailedCreateSandbox != "FailedCreatePodSandBox" || CrashLoopBackOff != "CrashLoopBackOff" {
		t.Errorf("kubelet spellings: %q %q %q", Evicted, FailedCreateSandbox, CrashLoopBackOff)
	}
}

// reasonConsts returns the names of the constants of the package in dir that keep.
func reasonConsts(t *testing.T, dir string, keep func(string) bool) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					if n.IsExported() && keep(n.Name) {
						out[n.Name] = true
					}
				}
			}
		}
	}
	return out
}
