package expand

import "strings"

// Expand replaces $(VAR) references in s as the kubelet does (its fork of Go's os.Expand,
// third_party/forked/golang/expansion): lookup(name) gives the value, or false to keep the
// reference as written; "$$" is an escaped "$"; a "$" not followed by "(" or "$", and an
// unterminated "$(", are kept as they are.
//
// The result may have at most limit bytes: Expand returns false, having built at most that
// much, as soon as it would have more. The kubelet expands each value with the expanded
// values of the variables before it, so without a bound each entry of an env list can double
// the one before.
func Expand(s string, lookup func(name string) (string, bool), limit int) (string, bool) {
	if !strings.Contains(s, "$") {
		return s, len(s) <= limit
	}
	var b strings.Builder
	write := func(parts ...string) bool {
		n := b.Len()
		for _, p := range parts {
			n += len(p)
		}
		if n > limit {
			return false
		}
		for _, p := range parts {
			b.WriteString(p)
		}
		return true
	}
	// After the last ")" no "$(" can be terminated: knowing it keeps a run of unterminated
	// "$(" linear.
	lastClose := strings.LastIndexByte(s, ')')
	checkpoint := 0
	for cursor := 0; cursor < len(s); cursor++ {
		if s[cursor] != '$' || cursor+1 >= len(s) {
			continue
		}
		if !write(s[checkpoint:cursor]) {
			return "", false
		}
		read, isVar, advance := readVariable(s[cursor+1:], cursor+1 < lastClose)
		var ok bool
		if !isVar {
			ok = write(read)
		} else if v, found := lookup(read); found {
			ok = write(v)
		} else {
			ok = write("$(", read, ")")
		}
		if !ok {
			return "", false
		}
		cursor += advance
		checkpoint = cursor + 1
	}
	if !write(s[checkpoint:]) {
		return "", false
	}
	return b.String(), true
}

// readVariable reads what follows a "$": a variable name in parentheses (isVar), an escaped
// "$", or anything else, which is returned with its "$". advance is the number of bytes
// consumed after the "$". closes tells whether s has a ")" after its first byte.
func readVariable(s string, closes bool) (read string, isVar bool, advance int) {
	switch s[0] {
	case '$':
		return "$", false, 1
	case '(':
		if !closes {
			return "$(", false, 1
		}
		if i := strings.IndexByte(s[1:], ')'); i >= 0 {
			return s[1 : i+1], true, i + 2
		}
		return "$(", false, 1
	default:
		return "$" + s[:1], false, 1
	}
}

// MapLookup looks names up in m.
func MapLookup(m map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}
