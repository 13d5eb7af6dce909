package expand

import (
	"bytes"
	"testing"
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
		if got, ok := Expand(s, MapLookup(vars), len(want)); !ok || got != want {
			t.Fatalf("Expand(%q) = %q, %v; the kubelet gives %q", s, got, ok, want)
		}
		if len(want) > 0 {
			if got, ok := Expand(s, MapLookup(vars), len(want)-1); ok {
				t.Fatalf("Expand(%q) = %q within %d bytes", s, got, len(want)-1)
			}
		}
	})
}
