package kube

import (
	"bytes"
	"testing"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
)

// kubeletExpand is the kubelet's expansion (third_party/forked/golang/expansion): the
// reference expand is checked against. One difference: where the kubelet keeps the byte
// after a "$" that starts nothing with string(input[0]), which turns a byte of a multi-byte
// UTF-8 character into another character ("$é" becomes "$Ã\xa9"), the byte is kept as it is.
func kubeletExpand(input string, mapping func(string) string) string {
	var buf bytes.Buffer
	checkpoint := 0
	for cursor := 0; cursor < len(input); cursor++ {
		if input[cursor] == '$' && cursor+1 < len(input) {
			buf.WriteString(input[checkpoint:cursor])
			read, isVar, advance := kubeletTryReadVariableName(input[cursor+1:])
			if isVar {
				buf.WriteString(mapping(read))
			} else {
				buf.WriteString(read)
			}
			cursor += advance
			checkpoint = cursor + 1
		}
	}
	return buf.String() + input[checkpoint:]
}

func kubeletTryReadVariableName(input string) (string, bool, int) {
	switch input[0] {
	case '$':
		return "$", false, 1
	case '(':
		for i := 1; i < len(input); i++ {
			if input[i] == ')' {
				return input[1:i], true, i + 1
			}
		}
		return "$(", false, 1
	default:
		return "$" + input[:1], false, 1
	}
}

// FuzzExpand checks expand against the kubelet's expansion, and its limit: a result of n
// bytes is returned whole with a limit of n, refused with n-1.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"", "$", "$$", "$(A)", "$(A)$(B)", "$$(A)", "$(A", "$($(A))", "x$(B)y$(C)z", "$(", "$()", "$(A)$"} {
		f.Add(s, "a", "$(A)")
	}
	f.Fuzz(func(t *testing.T, s, a, b string) {
		vars := map[string]string{"A": a, "B": b, "": "empty"}
		want := kubeletExpand(s, func(name string) string {
			if v, ok := vars[name]; ok {
				return v
			}
			return "$(" + name + ")"
		})
		if got, ok := expand(s, mapLookup(vars), len(want)); !ok || got != want {
			t.Fatalf("expand(%q) = %q, %v; the kubelet gives %q", s, got, ok, want)
		}
		if len(want) > 0 {
			if got, ok := expand(s, mapLookup(vars), len(want)-1); ok {
				t.Fatalf("expand(%q) = %q within %d bytes", s, got, len(want)-1)
			}
		}
	})
}

// FuzzExpandedYAMLSize checks the claim expandedYAMLSize rests on: a document without
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
		n, ok := expandedYAMLSize(doc, MaxManifestSize)
		if ok != (n <= MaxManifestSize) {
			t.Fatalf("measure %d, ok %v", n, ok)
		}
		if bytes.Contains(doc, []byte("*")) || !utf8.Valid(doc) {
			return
		}
		var v any
		if yamlv2.Unmarshal(doc, &v) != nil || v == nil {
			return
		}
		m := yamlMeasure{limit: MaxManifestSize}
		m.add(v)
		if m.n > len(doc) {
			t.Fatalf("%q without aliases measures %d, more than its %d bytes", doc, m.n, len(doc))
		}
	})
}
