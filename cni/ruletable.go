package cni

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ruleTable is one table of an iptables-save dump: its user-defined chains
// and its rules.
type ruleTable struct {
	name   string
	chains map[string]bool // user-defined chains (policy "-")
	rules  []rule
}

// rule is one "-A" line of an iptables-save dump.
type rule struct {
	line    string // as printed, starting with "-A "
	chain   string
	target  string // argument of -j or -g, if any
	comment string // argument of --comment, if any
	in      string // argument of -i, if any
}

// parseRuleTable parses the iptables-save output for a single table.
func parseRuleTable(name, dump string) *ruleTable {
	t := &ruleTable{name: name, chains: make(map[string]bool)}
	for line := range strings.Lines(dump) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, ":"):
			f := strings.Fields(line[1:])
			if len(f) >= 2 && f[1] == "-" {
				t.chains[f[0]] = true
			}
		case strings.HasPrefix(line, "-A "):
			t.rules = append(t.rules, parseRule(line))
		}
	}
	return t
}

// parseRule extracts the fields of an "-A" line that the sweeper needs.
func parseRule(line string) rule {
	r := rule{line: line}
	toks := shellFields(line)
	if len(toks) > 1 {
		r.chain = toks[1]
	}
	for i := 0; i+1 < len(toks); i++ {
		switch toks[i] {
		case "-j", "-g":
			r.target = toks[i+1]
		case "--comment":
			r.comment = toks[i+1]
		case "-i":
			r.in = toks[i+1]
		}
	}
	return r
}

// shellFields splits an iptables-save line into words, honouring the double
// quotes and backslash escapes iptables-save uses for comments.
func shellFields(s string) []string {
	var (
		out         []string
		cur         strings.Builder
		inWord, inQ bool
		escaped     bool
	)
	for _, c := range s {
		switch {
		case escaped:
			cur.WriteRune(c)
			escaped = false
		case c == '\\' && inQ:
			escaped = true
		case c == '"':
			inQ, inWord = !inQ, true
		case c == ' ' && !inQ:
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// ownedBy reports whether an iptables comment marks a rule the bridge
// (ipMasq) or portmap plugin added for pod id on network, i.e. whether it is
// or ends in `name: "<network>" id: "<id>"`. An empty id matches any pod.
func ownedBy(comment, network, id string) bool {
	prefix := fmt.Sprintf("name: %q id: ", network)
	i := strings.Index(comment, prefix)
	if i < 0 || (i > 0 && comment[i-1] != ' ') {
		return false
	}
	rest := comment[i+len(prefix):]
	if id == "" {
		return strings.HasPrefix(rest, `"`)
	}
	return rest == strconv.Quote(id)
}

// removal returns an iptables-restore --noflush payload that deletes the
// rules selected by match and drops (flushes and deletes) every user chain
// that only selected rules jump to. It returns "" if there is nothing to do.
func (t *ruleTable) removal(match func(rule) bool) string {
	dropped := make(map[string]bool)
	var selected []rule
	for _, r := range t.rules {
		if match(r) {
			selected = append(selected, r)
		}
	}
	for _, r := range selected {
		if t.chains[r.target] && !dropped[r.target] && t.onlyJumpedToBy(r.target, selected) {
			dropped[r.target] = true
		}
	}
	if len(selected) == 0 && len(dropped) == 0 {
		return ""
	}

	var b strings.Builder
	fmt.Fprintf(&b, "*%s\n", t.name)
	for _, r := range selected {
		if !dropped[r.chain] {
			fmt.Fprintf(&b, "-D %s\n", strings.TrimPrefix(r.line, "-A "))
		}
	}
	names := make([]string, 0, len(dropped))
	for c := range dropped {
		names = append(names, c)
	}
	slices.Sort(names)
	for _, c := range names {
		fmt.Fprintf(&b, "-F %s\n", c)
	}
	for _, c := range names {
		fmt.Fprintf(&b, "-X %s\n", c)
	}
	b.WriteString("COMMIT\n")
	return b.String()
}

// onlyJumpedToBy reports whether every rule jumping to chain is in set.
func (t *ruleTable) onlyJumpedToBy(chain string, set []rule) bool {
	for _, r := range t.rules {
		if r.target == chain && !slices.ContainsFunc(set, func(s rule) bool { return s.line == r.line }) {
			return false
		}
	}
	return true
}
