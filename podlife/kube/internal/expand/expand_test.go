package expand

import (
	"math"
	"strings"
	"testing"
)

// TestExpand checks $(VAR) expansion against the cases of the kubelet's expansion tests.
func TestExpand(t *testing.T) {
	vars := map[string]string{"VAR_A": "A", "VAR_B": "B", "VAR_C": "C", "VAR_REF": "$(VAR_A)", "VAR_EMPTY": ""}
	tests := []struct{ in, want string }{
		{"$(VAR_A)", "A"},
		{"___$(VAR_B)___", "___B___"},
		{"$(VAR_A)-$(VAR_A)", "A-A"},
		{"$(VAR_A)-1", "A-1"},
		{"$(VAR_A)_$(VAR_B)_$(VAR_C)", "A_B_C"},
		{"$(VAR_A)$(VAR_B)$(VAR_C)", "ABC"},
		{"$(VAR_REF)", "$(VAR_A)"}, // no recursion
		{"f000-$$VAR_A", "f000-$VAR_A"},
		{`foo\$(VAR_C)bar`, `foo\Cbar`},
		{`foo\\$(VAR_C)bar`, `foo\\Cbar`},
		{"$$(VAR_B)$(VAR_A)", "$(VAR_B)A"},
		{"$(VAR_A)$$(VAR_B)", "A$(VAR_B)"},
		{"$(VAR_A)$$$(VAR_B)", "A$B"},
		{"$$$$$$(BIG_MONEY)", "$$$(BIG_MONEY)"},
		{"$(VAR_DNE)", "$(VAR_DNE)"},
		{"$(VAR_EMPTY)", ""},
		{"$(VAR_A", "$(VAR_A"},
		{"$(VAR_A)$(VAR_B", "A$(VAR_B"},
		{"$VAR_A", "$VAR_A"},
		{"$(VAR_A)$", "A$"},
		{"$", "$"},
		{"$$", "$"},
		{"$$$", "$$"},
		{"$()", "$()"},
		{"$(,)", "$(,)"},
		{"$(cat /etc/hostname)", "$(cat /etc/hostname)"},
		{"no vars", "no vars"},
		{"", ""},
	}
	for _, tt := range tests {
		if got, ok := Expand(tt.in, MapLookup(vars), math.MaxInt); got != tt.want || !ok {
			t.Errorf("Expand(%q) = %q, %v, want %q", tt.in, got, ok, tt.want)
		}
		// At its exact length the result fits; one byte less, it does not.
		if got, ok := Expand(tt.in, MapLookup(vars), len(tt.want)); got != tt.want || !ok {
			t.Errorf("Expand(%q, limit %d) = %q, %v", tt.in, len(tt.want), got, ok)
		}
		if len(tt.want) > 0 {
			if got, ok := Expand(tt.in, MapLookup(vars), len(tt.want)-1); ok {
				t.Errorf("Expand(%q, limit %d) = %q, want refused", tt.in, len(tt.want)-1, got)
			}
		}
	}
}

// TestExpandStopsAtLimit checks that expand stops before building more than its limit: a
// lookup that would give a huge value is not copied, and the lookups after the limit is
// reached are not made.
func TestExpandStopsAtLimit(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	lookups := 0
	lookup := func(string) (string, bool) { lookups++; return huge, true }
	allocs := testing.AllocsPerRun(10, func() {
		if _, ok := Expand("a$(X)$(X)$(X)", lookup, 100); ok {
			t.Fatal("expansion over the limit accepted")
		}
	})
	if lookups != 11 { // one per run, and AllocsPerRun's warm-up
		t.Errorf("%d lookups, want 11: expand went on after the limit", lookups)
	}
	if allocs > 2 {
		t.Errorf("%v allocations per refused expansion", allocs)
	}
}

// TestExpandLinear checks that a long run of unterminated "$(" is expanded in linear time: the
// kubelet's code scans to the end of the string for each.
func TestExpandLinear(t *testing.T) {
	s := strings.Repeat("$(", 1<<20)
	got, ok := Expand(s, MapLookup(nil), len(s))
	if !ok || got != s {
		t.Fatalf("expand of unterminated references changed them (ok %v)", ok)
	}
}
