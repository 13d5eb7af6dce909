package fields

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife/kube/internal/report"
)

// RuleSet indexes rules by path pattern (placeholders expanded, indices written [*]).
type RuleSet struct {
	byPath map[string]Rule
	// interior holds the proper prefixes of the rule paths: objects and lists the walker
	// descends into.
	interior map[string]bool
}

// placeholders are expanded in rule paths, in this order.
var placeholders = []struct {
	name   string
	values []string
}{
	{"<container>", []string{"spec.containers[*]", "spec.initContainers[*]"}},
	{"<probe>", []string{"livenessProbe", "readinessProbe", "startupProbe"}},
	{"<hook>", []string{"lifecycle.postStart", "lifecycle.preStop"}},
}

// expandPattern returns the paths a rule path stands for.
func expandPattern(path string) []string {
	paths := []string{path}
	for _, ph := range placeholders {
		var next []string
		for _, p := range paths {
			if !strings.Contains(p, ph.name) {
				next = append(next, p)
				continue
			}
			for _, v := range ph.values {
				next = append(next, strings.ReplaceAll(p, ph.name, v))
			}
		}
		paths = next
	}
	return paths
}

func newRuleSet(rules []Rule) *RuleSet {
	rs := &RuleSet{byPath: map[string]Rule{}, interior: map[string]bool{}}
	for _, r := range rules {
		for _, p := range expandPattern(r.Path) {
			rs.byPath[p] = r
			for i := 1; i < len(p); i++ {
				if p[i] == '.' || p[i] == '[' {
					rs.interior[p[:i]] = true
				}
			}
		}
	}
	return rs
}

// The rule sets are built once; they are never modified after.
var (
	podSet       = sync.OnceValue(func() *RuleSet { return newRuleSet(PodRules()) })
	workloadSets = sync.OnceValue(func() map[string]*RuleSet {
		m := map[string]*RuleSet{}
		for _, k := range WorkloadKinds() {
			m[k] = newRuleSet(WorkloadRules(k))
		}
		return m
	})
)

// Pod returns the rules of a Pod, and of a workload's spec.template, indexed.
func Pod() *RuleSet { return podSet() }

// Workload returns the rules of a workload of kind (one of WorkloadKinds), indexed; nil for
// another kind.
func Workload(kind string) *RuleSet { return workloadSets()[kind] }

// Check reports every field set in obj (a typed Kubernetes object, or part of one) that
// the rules reject or warn about, or do not know, with its path under root.
func Check(rs *RuleSet, obj any, root *field.Path, is *report.List) {
	b, err := json.Marshal(obj)
	if err != nil {
		is.Errorf(root, "Internal error: %v", err)
		return
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		is.Errorf(root, "Internal error: %v", err)
		return
	}
	rs.walk(v, "", root, is)
}

// walk checks the value v found at path p, whose pattern is pattern.
func (rs *RuleSet) walk(v any, pattern string, p *field.Path, is *report.List) {
	if v == nil {
		return
	}
	if r, ok := rs.byPath[pattern]; ok {
		rs.apply(r, v, p, is)
		return
	}
	if pattern != "" && !rs.interior[pattern] {
		is.Errorf(p, "Forbidden: field not supported by podlife")
		return
	}
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child := k
			if pattern != "" {
				child = pattern + "." + k
			}
			rs.walk(v[k], child, report.ChildPath(p, k), is)
		}
	case []any:
		for i, e := range v {
			rs.walk(e, pattern+"[*]", p.Index(i), is)
		}
	default:
		is.Errorf(p, "Forbidden: field not supported by podlife")
	}
}

// apply reports what rule r says about value v at p.
func (rs *RuleSet) apply(r Rule, v any, p *field.Path, is *report.List) {
	if r.Support != Warned && r.Support != Rejected || isEmpty(v) {
		return
	}
	if slices.ContainsFunc(r.Accept, func(a any) bool { return reflect.DeepEqual(a, v) }) {
		return
	}
	if r.Support == Warned {
		is.Warnf(p, "Not honoured: %s", r.Note)
		return
	}
	switch v.(type) {
	case string, bool, float64:
		if len(r.Accept) > 0 {
			is.Errorf(p, "Unsupported value: %s: %s (supported: %s)", report.JSONString(v), r.Note, jsonList(r.Accept))
			return
		}
	}
	is.Errorf(p, "Forbidden: not supported by podlife: %s", r.Note)
}

// isEmpty tells whether v is an empty object or list, which asks for nothing.
func isEmpty(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

func jsonList(vs []any) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = report.JSONString(v)
	}
	return strings.Join(s, ", ")
}
