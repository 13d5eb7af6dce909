package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/podlife/podlife/examples/node/internal/names"
	"k8s.io/apimachinery/pkg/util/validation"
)

// legacyCollision returns the name of a pod of namespace a and that of a pod of namespace
// a+"-x" to which names.Legacy gives the same podlife name: their readable parts agree once cut
// ("x-p…" in a and "p…" in a-x are both "a-x-p…") and the 32-bit hashes are made to collide
// by a birthday search (about 2^16 hashes each side).
func legacyCollision(t testing.TB, a string) (attacker, victim string) {
	t.Helper()
	// Just long enough that the cut (54 characters) falls past the padding: the names stay
	// within the 63 characters podlife allows a pod name.
	pad := strings.Repeat("p", max(1, 63-1-8-len(a+"-x-")))
	victims := map[string]string{}
	for i := range 1 << 17 {
		v := pad + "-v" + strconv.Itoa(i)
		victims[names.Legacy(a+"-x", v)] = v
	}
	for j := range 1 << 26 {
		w := "x-" + pad + "-w" + strconv.Itoa(j)
		if v, ok := victims[names.Legacy(a, w)]; ok {
			return w, v
		}
	}
	t.Fatal("no legacy collision found")
	return "", ""
}

// names.Podlife is a DNS-1123 label, readable, different for the pairs that share a readable
// part or a legacy name, and never a legacy name.
func TestPodlifeNameCollisions(t *testing.T) {
	attacker, victim := legacyCollision(t, "col")
	if names.Legacy("col", attacker) != names.Legacy("col-x", victim) {
		t.Fatalf("legacyCollision: %s and %s", names.Legacy("col", attacker), names.Legacy("col-x", victim))
	}
	for _, n := range []string{attacker, victim} {
		if msgs := validation.IsDNS1123Label(n); len(msgs) > 0 {
			t.Errorf("legacyCollision: %q is no pod name podlife runs: %v", n, msgs)
		}
	}
	long := strings.Repeat("a", 240)
	pairs := [][2]string{
		{"kube", "system-x"}, {"kube-system", "x"}, // the issue's: one readable part
		{"a-b", "c"}, {"a", "b-c"}, {"ns", "web.v1"}, {"ns", "web-v1"},
		{"kube-system", long + "1"}, {"kube-system", long + "2"}, // differ past the cut only
		{"col", attacker}, {"col-x", victim}, // the same legacy name
		{"ab", "c"}, {"a", "bc"}, // not length-prefixed, these would hash alike
	}
	seen := map[string]string{}
	for _, c := range pairs {
		n := names.Podlife(c[0], c[1])
		if msgs := validation.IsDNS1123Label(n); len(msgs) > 0 {
			t.Errorf("names.Podlife(%q, %q) = %q: %v", c[0], c[1], n, msgs)
		}
		if prev, ok := seen[n]; ok {
			t.Errorf("names.Podlife(%q, %q) = %q, as for %s", c[0], c[1], n, prev)
		}
		seen[n] = c[0] + "/" + c[1]
		if n == names.Legacy(c[0], c[1]) || n[len(n)-names.HashLen-1] != '-' || strings.Contains(n[len(n)-names.HashLen:], "-") {
			t.Errorf("names.Podlife(%q, %q) = %q: want -<%d hash characters> last", c[0], c[1], n, names.HashLen)
		}
		if l := names.Legacy(c[0], c[1]); l[len(l)-9] != '-' {
			t.Errorf("names.Legacy(%q, %q) = %q: want -<8 hex> last", c[0], c[1], l)
		}
	}
	if n := names.Podlife("kube-system", "x"); !strings.HasPrefix(n, "kube-system-x-") {
		t.Errorf("names.Podlife(kube-system, x) = %q, want it readable", n)
	}
	// Pods the node started before names.Podlife keep their names: names.Legacy is the old mapping.
	if n := names.Legacy("default", "web"); n != "default-web-82b3ade9" {
		t.Errorf("names.Legacy(default, web) = %q, want the old node's default-web-82b3ade9", n)
	}
}
