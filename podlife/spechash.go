package podlife

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
)

// A pod's spec is recorded as a fingerprint per field (pod.json's specFields), so that a process
// adopting the pod (Runtime.Adopt) can tell whether the spec it gives is the one the pod runs,
// and if not, name what differs. Only what can be serialised is compared: a Go hook or prober is
// compared by its type (its code cannot be), an exec or HTTP one by its fields.
//
// The fingerprints are keyed (HMAC-SHA256 under the state dir's key, see speckey.go): they
// cover env values, files volumes' data and pull credentials, which must not be guessable from
// pod.json. Records of older managers have unkeyed ones (a bare SHA-256), still read.

// specFields returns the fingerprint of each field of spec (a recorded form, see recordedSpec,
// or for a comparison the defaulted spec): "restartPolicy", "containers[web].image", ..., and
// "containers" for the containers' names in order. key is the state dir's key; nil gives the
// unkeyed fingerprints of older records (legacy, read only).
func specFields(spec PodSpec, key []byte) map[string]string {
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
			cs := v.Field(i).Interface().([]ContainerSpec)
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
						fv, fname = reflect.ValueOf(ociHookOpts(c.OCIHook)), "SpecOpts"
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

// checkSpec compares an adopter's spec with the fingerprints rec keeps: keyed ones (this
// version's), else an older manager's unkeyed ones; a record without any, or keyed with a key
// the state dir no longer has, is adopted unchecked (logged). recorded is the spec's recorded
// form (see recordedSpec), what records fingerprint; spec is it defaulted. A field matches if
// the record has the fingerprint of either: a record made by an older podlife/kube, which
// filled the API server's defaults in (imagePullPolicy, port protocols, probe timings, the
// grace period), matches the same manifest converted now, which leaves them to admission.
func (r *Runtime) checkSpec(spec, recorded PodSpec, rec podRecord) error {
	var key []byte
	var macs map[string]string
	var hash string
	switch {
	case rec.SpecMAC != "":
		k, err := r.specKey()
		if err != nil {
			return fmt.Errorf("pod %q: %w", spec.Name, err)
		}
		if rec.SpecKey != specKeyID(k) {
			r.log.Warn("the pod's spec fingerprint was made with another key than the state dir's "+specKeyFile+": adopting it unchecked", "pod", spec.Name)
			return nil
		}
		key, macs, hash = k, rec.SpecMACs, rec.SpecMAC
	case rec.SpecHash != "":
		macs, hash = rec.SpecFields, rec.SpecHash
	default:
		return nil
	}
	given := specFields(recorded, key)
	if hash == specHash(given) {
		return nil
	}
	if diff := specMismatch(macs, given, specFields(spec, key)); len(diff) > 0 {
		return &SpecChangedError{Pod: spec.Name, Fields: diff}
	}
	return nil
}

// specMismatch names the fields, sorted, whose recorded fingerprint (in rec, absent included)
// is neither given's nor defaulted's.
func specMismatch(rec, given, defaulted map[string]string) []string {
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

// specHash is one hash of every field's fingerprint.
func specHash(fields map[string]string) string {
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

// specDiff names the fields whose fingerprints differ between a (recorded) and b (given),
// sorted.
func specDiff(a, b map[string]string) []string { return specMismatch(a, b, b) }

// fingerprint is a short MAC under key of field name's content v, read by reflection
// (unexported fields included: an exec hook's or prober's command is), a function counting by
// its type only. The name is in the MAC, so that equal values of two fields do not show as
// equal fingerprints. A nil key gives the bare hash of older records (see specFields).
func fingerprint(key []byte, name string, v reflect.Value) string {
	if key == nil {
		h := sha256.Sum256([]byte(describe(v, 0)))
		return hex.EncodeToString(h[:8])
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write([]byte(describe(v, 0)))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// describe renders v for fingerprint; depth bounds it (a spec has no cycles, but a value
// behind an interface might).
func describe(v reflect.Value, depth int) string {
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
		return typeName(v.Type()) + "(" + describe(v.Elem(), depth+1) + ")"
	case reflect.Slice, reflect.Array:
		parts := make([]string, v.Len())
		for i := range v.Len() {
			parts[i] = describe(v.Index(i), depth+1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case reflect.Map:
		keys := v.MapKeys()
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = describe(k, depth+1) + ":" + describe(v.MapIndex(k), depth+1)
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
			parts = append(parts, t.Field(i).Name+":"+describe(v.Field(i), depth+1))
		}
		return typeName(t) + "{" + strings.Join(parts, ",") + "}"
	case reflect.String:
		return strconv.Quote(v.String())
	}
	return fmt.Sprint(v)
}

// apiPath is the package path of the spec types, which package podlife re-exports.
var apiPath = reflect.TypeFor[api.PodSpec]().PkgPath()

// typeName is t's name as describe has always written it: the spec types are named as
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
