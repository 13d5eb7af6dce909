package decode

import (
	"bytes"
	"testing"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
)

// maxManifestSize is kube.MaxManifestSize, the limit the loader measures against.
const maxManifestSize = 3 << 20

// FuzzExpandedYAMLSize checks the claim ExpandedYAMLSize rests on: a document without
// aliases measures at most its length, so that only aliases can make a manifest measure
// more than it is long. It must not panic on any document. The claim is for UTF-8: YAML in
// UTF-16 (with its byte order mark) grows by up to half once decoded.
func FuzzExpandedYAMLSize(f *testing.F) {
	for _, s := range []string{"a:", "- ", "-", "{}", "[]", "[{}]", "a: {}", "? a\n: b", `"": x`, "a: \"\\U0001F600\"",
		"a: |+\n  x\n\n", "a: !!binary aGVsbG8=", "a: &x [1]\nb: *x", "<<: {a: 1}", "a: 2001-12-14t21:59:43.10-05:00",
		"a: 123456789012345678901234567890"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		n, ok := ExpandedYAMLSize(doc, maxManifestSize)
		if ok != (n <= maxManifestSize) {
			t.Fatalf("measure %d, ok %v", n, ok)
		}
		if bytes.Contains(doc, []byte("*")) || !utf8.Valid(doc) {
			return
		}
		var v any
		if yamlv2.Unmarshal(doc, &v) != nil || v == nil {
			return
		}
		m := yamlMeasure{limit: maxManifestSize}
		m.add(v)
		if m.n > len(doc) {
			t.Fatalf("%q without aliases measures %d, more than its %d bytes", doc, m.n, len(doc))
		}
	})
}
