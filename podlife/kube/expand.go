package kube

import "strings"

// expand replaces $(VAR) references in s as the kubelet does (its fork of Go's os.Expand,
// third_party/forked/golang/expansion): lookup(name) gives the value, or false to keep the
// reference as written; "$$" is an escaped "$"; a "$" not followed by "(" or "$", and an
// unterminated "$(", are kept as they are.
func expand(s string, lookup func(name string) (string, bool)) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	checkpoint := 0
	for cursor := 0; cursor < len(s); cursor++ {
		if s[cursor] != '$' || cursor+1 >= len(s) {
			continue
		}
		b.WriteString(s[checkpoint:cursor])
		read, isVar, advance := readVariable(s[cursor+1:])
		if isVar {
			if v, ok := lookup(read); ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + read + ")")
			}
		} else {
			b.WriteString(read)
		}
		cursor += advance
		checkpoint = cursor + 1
	}
	return b.String() + s[checkpoint:]
}

// readVariable reads what follows a "$": a variable name in parentheses (isVar), an escaped
// "$", or anything else, which is returned with its "$". advance is the number of bytes
// consumed after the "$".
func readVariable(s string) (read string, isVar bool, advance int) {
	switch s[0] {
	case '$':
		return "$", false, 1
	case '(':
		if i := strings.IndexByte(s[1:], ')'); i >= 0 {
			return s[1 : i+1], true, i + 2
		}
		return "$(", false, 1
	default:
		return "$" + s[:1], false, 1
	}
}

// mapLookup looks names up in m.
func mapLookup(m map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// expandAll expands every string of list.
func expandAll(list []string, lookup func(string) (string, bool)) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = expand(s, lookup)
	}
	return out
}
