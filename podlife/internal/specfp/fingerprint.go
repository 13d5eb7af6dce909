package specfp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/podlife/podlife/podlife/internal/api"
	"github.com/podlife/podlife/podlife/internal/ocibuild"
)

// Fields returns the fingerprint of each field of spec (a recorded form, see recordedSpec,
// or for a comparison the defaulted spec): "restartPolicy", "containers[web].image", ..., and
// "containers" for the containers' names in order. key is the state dir's key; nil gives the
// unkeyed fingerprints of older records (legacy, read only).
func Fields(spec api.PodSpec, key []byte) map[string]string {
	out := map[string]string{}
	v := reflect.ValueOf(spec)
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		switch f.Name {
		case "Name":
			continue // the pod's identity, not its spec
		case "InitContainers", "Containers":
			field := lowerFirst(f.Name)
			cs := v.Field(i).Interface().([]api.ContainerSpec)
			names := make([]string, len(cs))
			for j, c := range cs {
				names[j] = c.Name
				cv := reflect.ValueOf(c)
				for k := range cv.NumField() {
					cf := cv.Type().Field(k)
					if cf.Name == "Name" || cf.Tag.Get("fingerprint") == "omitzero" && cv.Field(k).IsZero() {
						continue // a field added later: unset, it leaves older fingerprints as they were
					}
					fv, fname := cv.Field(k), cf.Name
					if fname == "OCIHook" {
						// Recorded as the field it replaced, the []oci.SpecOpts it becomes: records
						// of older managers keep matching (none set, or one).
						fv, fname = reflect.ValueOf(ocibuild.OCIHookOpts(c.OCIHook)), "SpecOpts"
					}
					name := fmt.Sprintf("%s[%s].%s", field, c.Name, lowerFirst(fname))
					out[name] = fingerprint(key, name, fv)
				}
			}
			out[field] = strings.Join(names, ",")
			continue
		}
		name := lowerFirst(f.Name)
		out[name] = fingerprint(key, name, v.Field(i))
	}
	return out
}

// Mismatch names the fields, sorted, whose recorded fingerprint (in rec, absent included)
// is neither given's nor defaulted's.
func Mismatch(rec, given, defaulted map[string]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range []map[string]string{rec, given, defaulted} {
		for k := range m {
			if seen[k] {
				continue
			}
			seen[k] = true
			r, inRec := rec[k]
			g, inGiven := given[k]
			d, inDefaulted := defaulted[k]
			if (inRec == inGiven && r == g) || (inRec == inDefaulted && r == d) {
				continue
			}
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Hash is one hash of every field's fingerprint.
func Hash(fields map[string]string) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\n", k, fields[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Diff names the fields whose fingerprints differ between a (recorded) and b (given),
// sorted.
func Diff(a, b map[string]string) []string { return Mismatch(a, b, b) }

// fingerprint is a short MAC under key of field name's content v, read by reflection
// (unexported fields included: an exec hook's or prober's command is), a function counting by
// its type only. The name is in the MAC, so that equal values of two fields do not show as
// equal fingerprints. A nil key gives the bare hash of older records (see Fields).
func fingerprint(key []byte, name string, v reflect.Value) string {
	if key == nil {
		h := sha256.Sum256([]byte(Describe(v, 0)))
		return hex.EncodeToString(h[:8])
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write([]byte(Describe(v, 0)))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// Describe renders v for fingerprint; depth bounds it (a spec has no cycles, but a value
// behind an interface might).
func Describe(v reflect.Value, depth int) string {
	if !v.IsValid() {
		return "nil"
	}
	if depth > 32 {
		return "..."
	}
	switch v.Kind() {
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if v.IsNil() {
			return "nil"
		}
		return typeName(v.Type())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		return typeName(v.Type()) + "(" + Describe(v.Elem(), depth+1) + ")"
	case reflect.Slice, reflect.Array:
		parts := make([]string, v.Len())
		for i := range v.Len() {
			parts[i] = Describe(v.Index(i), depth+1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case reflect.Map:
		keys := v.MapKeys()
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = Describe(k, depth+1) + ":" + Describe(v.MapIndex(k), depth+1)
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ",") + "}"
	case reflect.Struct:
		t := v.Type()
		parts := make([]string, 0, t.NumField())
		for i := range t.NumField() {
			if t.Field(i).Tag.Get("fingerprint") == "omitzero" && v.Field(i).IsZero() {
				continue // a field added later: unset, it leaves older fingerprints as they were
			}
			if t.Field(i).Tag.Get("fingerprint") == "-" {
				continue // not part of what the pod runs (api.Resources.MemoryRequest)
			}
			parts = append(parts, t.Field(i).Name+":"+Describe(v.Field(i), depth+1))
		}
		return typeName(t) + "{" + strings.Join(parts, ",") + "}"
	case reflect.String:
		return strconv.Quote(v.String())
	}
	return fmt.Sprint(v)
}

// apiPath is the package path of the spec types, which package podlife re-exports.
var apiPath = reflect.TypeFor[api.PodSpec]().PkgPath()

// typeName is t's name as Describe has always written it: the spec types are named as
// package podlife's (podlife.EnvVar), where they were declared before they moved to
// podlife/internal/api, so that fingerprints recorded by older managers still match.
func typeName(t reflect.Type) string {
	if t.Name() != "" {
		if t.PkgPath() == apiPath {
			return "podlife." + t.Name()
		}
		return t.String()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + typeName(t.Elem())
	case reflect.Slice:
		return "[]" + typeName(t.Elem())
	case reflect.Array:
		return "[" + strconv.Itoa(t.Len()) + "]" + typeName(t.Elem())
	case reflect.Map:
		return "map[" + typeName(t.Key()) + "]" + typeName(t.Elem())
	}
	return strings.ReplaceAll(t.String(), "api.", "podlife.")
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
