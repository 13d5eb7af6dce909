package kube

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ruleSet indexes rules by path pattern (placeholders expanded, indices written [*]).
type ruleSet struct {
	byPath map[string]rule
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

func newRuleSet(rules []rule) *ruleSet {
	rs := &ruleSet{byPath: map[string]rule{}, interior: map[string]bool{}}
	for _, r := range rules {
		for _, p := range expandPattern(r.path) {
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

// ruleSets are built once; they are never modified after.
var (
	podRuleSet      = sync.OnceValue(func() *ruleSet { return newRuleSet(podRules()) })
	workloadRuleSet = sync.OnceValue(func() map[string]*ruleSet {
		m := map[string]*ruleSet{}
		for _, k := range workloadKinds {
			m[k] = newRuleSet(workloadRules(k))
		}
		return m
	})
)

// checkFields reports every field set in obj (a typed Kubernetes object, or part of one) that
// the rules reject or warn about, or do not know, with its path under root.
func checkFields(rs *ruleSet, obj any, root *field.Path, is *issues) {
	b, err := json.Marshal(obj)
	if err != nil {
		is.errorf(root, "Internal error: %v", err)
		return
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		is.errorf(root, "Internal error: %v", err)
		return
	}
	rs.walk(v, "", root, is)
}

// walk checks the value v found at path p, whose pattern is pattern.
func (rs *ruleSet) walk(v any, pattern string, p *field.Path, is *issues) {
	if v == nil {
		return
	}
	if r, ok := rs.byPath[pattern]; ok {
		rs.apply(r, v, p, is)
		return
	}
	if pattern != "" && !rs.interior[pattern] {
		is.errorf(p, "Forbidden: field not supported by podlife")
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
			rs.walk(v[k], child, childPath(p, k), is)
		}
	case []any:
		for i, e := range v {
			rs.walk(e, pattern+"[*]", p.Index(i), is)
		}
	default:
		is.errorf(p, "Forbidden: field not supported by podlife")
	}
}

// apply reports what rule r says about value v at p.
func (rs *ruleSet) apply(r rule, v any, p *field.Path, is *issues) {
	if r.support != warned && r.support != rejected || isEmpty(v) {
		return
	}
	if slices.ContainsFunc(r.accept, func(a any) bool { return reflect.DeepEqual(a, v) }) {
		return
	}
	if r.support == warned {
		is.warnf(p, "Not honoured: %s", r.note)
		return
	}
	switch v.(type) {
	case string, bool, float64:
		if len(r.accept) > 0 {
			is.errorf(p, "Unsupported value: %s: %s (supported: %s)", jsonString(v), r.note, jsonList(r.accept))
			return
		}
	}
	is.errorf(p, "Forbidden: not supported by podlife: %s", r.note)
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

// childPath returns root.Child(name), or a new path when root is nil.
func childPath(root *field.Path, name string) *field.Path {
	if root == nil {
		return field.NewPath(name)
	}
	return root.Child(name)
}

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func jsonList(vs []any) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = jsonString(v)
	}
	return strings.Join(s, ", ")
}
