package fields

import (
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// fieldPaths lists the JSON path patterns of every field of t ([*] for list elements), and
// which of them are leaves (scalars, maps, quantities...).
func fieldPaths(t reflect.Type) (all []string, leaf map[string]bool) {
	leaf = map[string]bool{}
	var walk func(t reflect.Type, path string, stack map[reflect.Type]bool)
	walk = func(t reflect.Type, path string, stack map[reflect.Type]bool) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if path != "" {
			all = append(all, path)
		}
		switch t {
		case reflect.TypeFor[resource.Quantity](), reflect.TypeFor[metav1.Time](), reflect.TypeFor[metav1.MicroTime](),
			reflect.TypeFor[intstr.IntOrString](), reflect.TypeFor[runtime.RawExtension](), reflect.TypeFor[metav1.FieldsV1]():
			leaf[path] = true
			return
		}
		switch t.Kind() {
		case reflect.Slice:
			if t.Elem().Kind() == reflect.Uint8 {
				leaf[path] = true
				return
			}
			walk(t.Elem(), path+"[*]", stack)
		case reflect.Struct:
			if stack[t] {
				leaf[path] = true
				return
			}
			stack[t] = true
			defer delete(stack, t)
			for i := range t.NumField() {
				f := t.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				switch {
				case name == "-":
				case f.Anonymous && name == "":
					walk(f.Type, path, stack)
				default:
					p := name
					if path != "" {
						p = path + "." + name
					}
					walk(f.Type, p, stack)
				}
			}
		default:
			leaf[path] = true
		}
	}
	walk(t, "", map[reflect.Type]bool{})
	return all, leaf
}

// lookupRule returns the rule for a path pattern: its own, or its closest ancestor's.
func (rs *RuleSet) lookupRule(path string) (Rule, bool) {
	for p := path; p != ""; {
		if r, ok := rs.byPath[p]; ok {
			return r, true
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return Rule{}, false
}

// TestRulesCoverEveryField: every field of the k8s.io/api types the loader reads has a rule,
// so nothing reaches the "not supported" default by omission.
func TestRulesCoverEveryField(t *testing.T) {
	check := func(name string, rs *RuleSet, typ reflect.Type, skip string) {
		all, leaf := fieldPaths(typ)
		for _, p := range all {
			if !leaf[p] || (skip != "" && strings.HasPrefix(p, skip)) {
				continue
			}
			if _, ok := rs.lookupRule(p); !ok {
				t.Errorf("%s: no rule for %s", name, p)
			}
		}
	}
	check("Pod", Pod(), reflect.TypeFor[corev1.Pod](), "")
	check("template", Pod(), reflect.TypeFor[corev1.PodTemplateSpec](), "")
	for kind, typ := range map[string]reflect.Type{
		Deployment: reflect.TypeFor[appsv1.Deployment](), StatefulSet: reflect.TypeFor[appsv1.StatefulSet](),
		DaemonSet: reflect.TypeFor[appsv1.DaemonSet](), ReplicaSet: reflect.TypeFor[appsv1.ReplicaSet](),
		Job: reflect.TypeFor[batchv1.Job](),
	} {
		check(kind, Workload(kind), typ, "spec.template.")
	}
}

// TestRulesNameRealFields: every rule path is a field of the types, so a typo cannot hide a
// field behind a rule that never matches.
func TestRulesNameRealFields(t *testing.T) {
	check := func(name string, rules []Rule, typ reflect.Type) {
		all, _ := fieldPaths(typ)
		known := map[string]bool{}
		for _, p := range all {
			known[p] = true
		}
		for _, r := range rules {
			for _, p := range expandPattern(r.Path) {
				if !known[p] {
					t.Errorf("%s: rule %q: no field %s", name, r.Path, p)
				}
			}
		}
	}
	check("Pod", PodRules(), reflect.TypeFor[corev1.Pod]())
	for kind, typ := range map[string]reflect.Type{
		Deployment: reflect.TypeFor[appsv1.Deployment](), StatefulSet: reflect.TypeFor[appsv1.StatefulSet](),
		DaemonSet: reflect.TypeFor[appsv1.DaemonSet](), ReplicaSet: reflect.TypeFor[appsv1.ReplicaSet](),
		Job: reflect.TypeFor[batchv1.Job](),
	} {
		check(kind, WorkloadRules(kind), typ)
	}
}
