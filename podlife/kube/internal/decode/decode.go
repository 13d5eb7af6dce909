package decode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/podlife/podlife/podlife/kube/internal/report"
)

// Doc is one document of a manifest.
type Doc struct {
	// Index is the 0-based index of the document in its manifest.
	Index int
	// Data is the document as written; YAML tells whether it is YAML (else JSON).
	Data []byte
	YAML bool
}

// Split cuts a manifest into documents: a stream of JSON objects if it starts with "{", else
// "---" separated YAML documents. A document that cannot be cut out ends the manifest, as
// does a document past maxDocs: problem is then the message of the error about the document
// after the last one returned (index len(docs)).
func Split(data []byte, maxDocs int) (docs []Doc, problem string) {
	tooMany := func() bool {
		if len(docs) < maxDocs {
			return false
		}
		problem = fmt.Sprintf("Too many: a manifest may hold at most %d documents", maxDocs)
		return true
	}
	if utilyaml.IsJSONBuffer(data) {
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err == io.EOF {
				return docs, ""
			} else if err != nil {
				return docs, "Invalid value: invalid JSON: " + err.Error()
			}
			if tooMany() {
				return docs, problem
			}
			docs = append(docs, Doc{Index: len(docs), Data: raw})
		}
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		b, err := r.Read()
		if err == io.EOF {
			return docs, ""
		} else if err != nil {
			return docs, "Invalid value: invalid YAML: " + err.Error()
		}
		if tooMany() {
			return docs, problem
		}
		docs = append(docs, Doc{Index: len(docs), Data: bytes.Clone(b), YAML: true})
	}
}

// Header is what every object document has.
type Header struct {
	APIVersion, Kind, Name string
}

// ToJSON converts a document to JSON and reads its header. It returns nil JSON for an empty
// document (only comments or blanks).
func ToJSON(rd Doc, is *report.List) ([]byte, Header) {
	data := rd.Data
	if rd.YAML {
		j, err := yaml.YAMLToJSONStrict(rd.Data)
		if err != nil {
			// A duplicate key is an error of the strict conversion only; the lenient one
			// would give a mangled document.
			if _, lerr := yaml.YAMLToJSON(rd.Data); lerr == nil {
				is.Errorf(nil, "Duplicate value: %s", yamlErrorText(err))
			} else {
				is.Errorf(nil, "Invalid value: invalid YAML: %s", yamlErrorText(err))
			}
			return nil, Header{}
		}
		data = j
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		is.Errorf(nil, "Invalid value: invalid JSON: %v", err)
		return nil, Header{}
	}
	if v == nil {
		return nil, Header{}
	}
	m, ok := v.(map[string]any)
	if !ok {
		is.Errorf(nil, "Invalid value: a manifest document must be an object, not %s", jsonKind(v))
		return nil, Header{}
	}
	var h Header
	str := func(p *field.Path, v any) string {
		if v == nil {
			return ""
		}
		s, ok := v.(string)
		if !ok {
			is.Errorf(p, "Invalid value: %s: must be a string", report.JSONString(v))
		}
		return s
	}
	h.APIVersion = str(field.NewPath("apiVersion"), m["apiVersion"])
	h.Kind = str(field.NewPath("kind"), m["kind"])
	if meta, ok := m["metadata"].(map[string]any); ok {
		h.Name, _ = meta["name"].(string)
	}
	return data, h
}

// yamlErrorText flattens the text of a YAML error to one line.
func yamlErrorText(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	return strings.Replace(msg, "yaml: unmarshal errors: ", "", 1)
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// Strict decodes a document's JSON into obj as the API server does with strict field
// validation: unknown and duplicate fields are errors, with their paths. A value of the wrong
// type is an error at its path.
func Strict(data []byte, obj runtime.Object, is *report.List) bool {
	s := kjsonserializer.NewSerializerWithOptions(kjsonserializer.DefaultMetaFactory, nil, unregistered{},
		kjsonserializer.SerializerOptions{Strict: true})
	_, _, err := s.Decode(data, nil, obj)
	if err == nil {
		return true
	}
	if se, ok := runtime.AsStrictDecodingError(err); ok {
		for _, e := range se.Errors() {
			p, msg := strictPath(e.Error())
			is.Errorf(p, "%s", msg)
		}
		return true
	}
	var v any
	if json.Unmarshal(data, &v) == nil {
		if paths := locate(reflect.TypeOf(obj), v, nil, nil); len(paths) > 0 {
			for _, p := range paths {
				is.Errorf(p.path, "Invalid value: %s", p.err)
			}
			return false
		}
	}
	is.Errorf(nil, "Invalid value: %v", err)
	return false
}

// unregistered is a runtime.ObjectTyper that knows no type, so that the serializer decodes
// into the object it is given.
type unregistered struct{}

func (unregistered) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	return nil, false, runtime.NewNotRegisteredErrForType("podlife/kube", reflect.TypeOf(obj))
}

func (unregistered) Recognizes(schema.GroupVersionKind) bool { return false }

// strictFieldRE matches the strict decoding errors of sigs.k8s.io/json, which name the field.
var strictFieldRE = regexp.MustCompile(`^(unknown|duplicate) field "(.*)"$`)

// strictPath returns the path and message of a strict decoding error.
func strictPath(msg string) (*field.Path, string) {
	m := strictFieldRE.FindStringSubmatch(msg)
	if m == nil {
		return nil, "Invalid value: " + msg
	}
	if m[1] == "unknown" {
		return parsePath(m[2]), "Forbidden: unknown field"
	}
	return parsePath(m[2]), "Duplicate value: the field is given more than once"
}

// parsePath turns "spec.containers[0].image" into a *field.Path.
func parsePath(s string) *field.Path {
	var p *field.Path
	for s != "" {
		i := strings.IndexAny(s, ".[")
		var name string
		switch {
		case i < 0:
			name, s = s, ""
		case i == 0 && s[0] == '[':
			j := strings.IndexByte(s, ']')
			if j < 0 {
				return report.ChildPath(p, s)
			}
			idx := s[1:j]
			if p == nil {
				p = field.NewPath("")
			}
			if n, ok := atoi(idx); ok {
				p = p.Index(n)
			} else {
				p = p.Key(idx)
			}
			s = s[j+1:]
			continue
		case i == 0:
			s = s[1:]
			continue
		default:
			name, s = s[:i], s[i:]
		}
		p = report.ChildPath(p, name)
	}
	return p
}

func atoi(s string) (int, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n, true
}

// badField is a value that does not decode, at its path.
type badField struct {
	path *field.Path
	err  string
}

// maxBadFields bounds how many undecodable values one document reports.
const maxBadFields = 20

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// locate finds the values of v (decoded JSON) that do not decode into type t, descending into
// struct fields (by JSON name), list elements and map values to the deepest failing one.
func locate(t reflect.Type, v any, p *field.Path, found []badField) []badField {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if len(found) >= maxBadFields || decodes(t, v) {
		return found
	}
	n := len(found)
	if !reflect.PointerTo(t).Implements(unmarshalerType) {
		switch t.Kind() {
		case reflect.Struct:
			if m, ok := v.(map[string]any); ok {
				fields := jsonFields(t)
				for _, k := range slices.Sorted(maps.Keys(m)) {
					if ft, ok := fields[k]; ok {
						found = locate(ft, m[k], report.ChildPath(p, k), found)
					}
				}
			}
		case reflect.Slice:
			if l, ok := v.([]any); ok && t.Elem().Kind() != reflect.Uint8 {
				for i, e := range l {
					found = locate(t.Elem(), e, indexPath(p, i), found)
				}
			}
		case reflect.Map:
			if m, ok := v.(map[string]any); ok {
				for _, k := range slices.Sorted(maps.Keys(m)) {
					found = locate(t.Elem(), m[k], keyPath(p, k), found)
				}
			}
		}
	}
	if len(found) == n {
		found = append(found, badField{path: p, err: decodeError(t, v)})
	}
	return found
}

// decodes tells whether v decodes into a value of type t.
func decodes(t reflect.Type, v any) bool {
	return decodeError(t, v) == ""
}

func decodeError(t reflect.Type, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	if err := utiljson.Unmarshal(b, reflect.New(t).Interface()); err != nil {
		msg := err.Error()
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			msg = fmt.Sprintf("%s: must be %s", report.JSONString(v), te.Type)
		}
		return strings.TrimPrefix(msg, "json: ")
	}
	return ""
}

// jsonFields maps the JSON names of a struct's fields (embedded structs inlined) to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case f.Anonymous && name == "":
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					out[k] = v
				}
			}
		case name == "" && f.IsExported():
			out[f.Name] = f.Type
		case name != "":
			out[name] = f.Type
		}
	}
	return out
}

// indexPath returns p.Index(i), or a path of its own when p is nil.
func indexPath(p *field.Path, i int) *field.Path {
	if p == nil {
		p = field.NewPath("")
	}
	return p.Index(i)
}

// keyPath returns p.Key(k), or a path of its own when p is nil.
func keyPath(p *field.Path, k string) *field.Path {
	if p == nil {
		p = field.NewPath("")
	}
	return p.Key(k)
}
