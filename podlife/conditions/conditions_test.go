package conditions

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Every condition type and status of podlife's vocabulary (a constant of podlife/internal/api
// declared with type ConditionType or ConditionStatus) is here: a condition type under its
// name, a status without its Condition prefix.
func TestEveryCondition(t *testing.T) {
	declared := typedConsts(t, "../internal/api", "ConditionType", "ConditionStatus")
	if len(declared) < 9 {
		t.Fatalf("found %d condition constants in api, want at least 9: did their type change?", len(declared))
	}
	here := typedConsts(t, ".", "")
	var missing []string
	for name := range declared {
		if !here[name] && !here[strings.TrimPrefix(name, "Condition")] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("api declares conditions that package conditions lacks: %v", missing)
	}
	if PodReady != "Ready" || PodInitialized != "Initialized" || True != "True" {
		t.Errorf("Kubernetes' spellings: %q %q %q", PodReady, PodInitialized, True)
	}
}

// typedConsts returns the exported constants of the package in dir, of one of the types named
// (any constant when types is "").
func typedConsts(t *testing.T, dir string, types ...string) map[string]bool {
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
				vs := spec.(*ast.ValueSpec)
				typ := ""
				if id, ok := vs.Type.(*ast.Ident); ok {
					typ = id.Name
				}
				for _, n := range vs.Names {
					if !n.IsExported() {
						continue
					}
					for _, want := range types {
						if want == "" || want == typ {
							out[n.Name] = true
						}
					}
				}
			}
		}
	}
	return out
}
