package decode

import (
	"bytes"

	yamlv2 "go.yaml.in/yaml/v2"
)

// ExpandedYAMLSize measures a YAML document with its aliases expanded, stopping past limit:
// the bytes of its strings and one for every other scalar but null, each list item and map
// key counted as at least one. Without aliases the measure is at most the length of
// the text (every value takes at least a byte of it), so that the measure bounds what
// aliases add. ok is false when the measure exceeds limit.
//
// A document with no "*" has no alias and measures its length. Else it is decoded as
// sigs.k8s.io/yaml decodes it, by go.yaml.in/yaml/v2, which already bounds the number of
// nodes aliases may add ("excessive aliasing") but not their size: an alias of a long
// string costs one node. A document that does not decode measures its length; its
// conversion reports the error.
func ExpandedYAMLSize(doc []byte, limit int) (n int, ok bool) {
	if !bytes.Contains(doc, []byte("*")) {
		return len(doc), len(doc) <= limit
	}
	var v any
	if err := yamlv2.Unmarshal(doc, &v); err != nil || v == nil {
		return len(doc), len(doc) <= limit
	}
	m := yamlMeasure{limit: limit}
	m.add(v)
	return m.n, m.n <= limit
}

// yamlMeasure adds up the size of decoded YAML until it exceeds limit.
type yamlMeasure struct {
	n, limit int
}

// add adds the size of v, and returns it.
func (m *yamlMeasure) add(v any) int {
	if m.n > m.limit {
		return 0
	}
	switch v := v.(type) {
	case string:
		m.n += len(v)
		return len(v)
	case []any:
		size := 0
		for _, e := range v {
			size += m.atLeastOne(e)
		}
		return size
	case map[any]any:
		size := 0
		for k, e := range v {
			size += m.atLeastOne(k)
			size += m.add(e)
		}
		return size
	case nil:
		return 0
	default: // a number, a boolean, a time
		m.n++
		return 1
	}
}

// atLeastOne adds v's size, counting at least one byte for it.
func (m *yamlMeasure) atLeastOne(v any) int {
	if size := m.add(v); size > 0 {
		return size
	}
	m.n++
	return 1
}
