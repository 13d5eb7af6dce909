package kube_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podlife/podlife/podlife/kube"
)

// memoryBound is the most a refused bomb may make Load allocate in all: generous, and
// still a small fraction of what the bombs would take unbounded (gigabytes to exabytes).
const memoryBound = 64 << 20

// measure runs f and returns the bytes it allocated and the time it took.
func measure(f func()) (allocated uint64, took time.Duration) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	took = time.Since(start)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, took
}

// doublingEnv returns env entries A0 (a literal of size bytes) to A<n>, each A<i> being
// "$(A<i-1>)$(A<i-1>)": twice the one before once expanded, as the kubelet expands.
func doublingEnv(size, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "    env:\n    - {name: A0, value: %s}\n", strings.Repeat("x", size))
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "    - {name: A%d, value: \"$(A%d)$(A%d)\"}\n", i, i-1, i-1)
	}
	return b.String()
}

// TestEnvExpansionBomb: a 2.6 KB manifest whose env doubles at each of 60 entries (2^66 bytes
// once expanded) is refused at the first value over MaxExpandedString, quickly and with
// little memory.
func TestEnvExpansionBomb(t *testing.T) {
	manifest := pod("", doublingEnv(64, 60))
	if len(manifest) > 3000 {
		t.Fatalf("the bomb is %d bytes", len(manifest))
	}
	var err error
	allocated, took := measure(func() { _, err = loadString(kube.Options{}, manifest) })
	is := loadErrors(t, err)
	// 64 << 11 is MaxExpandedString exactly: A11 fits, A12 does not.
	if len(is) != 1 || is[0].Path != "spec.containers[0].env[12].value" ||
		!strings.Contains(is[0].Message, fmt.Sprint(kube.MaxExpandedString)) {
		t.Fatalf("issues %v, want one at spec.containers[0].env[12].value naming the limit", is)
	}
	t.Logf("refused in %v, %d KiB allocated: %s", took, allocated>>10, is[0])
	if allocated > memoryBound {
		t.Errorf("Load allocated %d MiB", allocated>>20)
	}
	if took > 10*time.Second {
		t.Errorf("Load took %v", took)
	}
}

// TestContainerEnvironmentLimit: values each within MaxExpandedString but together over
// MaxContainerEnvironment are refused at the first that does not fit, in env and in args;
// the rest of the container is not expanded.
func TestContainerEnvironmentLimit(t *testing.T) {
	// A11 is 128 KiB; B<i> = $(A11) adds 128 KiB each: 13 fit with the A's, not 14.
	var b strings.Builder
	b.WriteString(doublingEnv(64, 11))
	for i := range 20 {
		fmt.Fprintf(&b, "    - {name: B%d, value: $(A11)}\n", i)
	}
	b.WriteString("    args: [$(A11)]\n")
	_, err := loadString(kube.Options{}, pod("", b.String()))
	is := loadErrors(t, err)
	if len(is) != 1 || is[0].Path != "spec.containers[0].env[25].value" ||
		!strings.Contains(is[0].Message, fmt.Sprint(kube.MaxContainerEnvironment)) {
		t.Fatalf("issues %v, want one at spec.containers[0].env[25].value naming the limit", is)
	}

	// The same room taken by args: the env is A0..A11 (256 KiB), 13 args fit and not 14.
	args := strings.TrimSuffix(strings.Repeat("$(A11), ", 20), ", ")
	_, err = loadString(kube.Options{}, pod("", doublingEnv(64, 11)+"    command: [$(A11)]\n    args: ["+args+"]\n"))
	is = loadErrors(t, err)
	if len(is) != 1 || is[0].Path != "spec.containers[0].args[13]" {
		t.Fatalf("issues %v, want one at spec.containers[0].args[13]", is)
	}
}

// TestExpansionTotalLimit: containers each within MaxContainerEnvironment are refused once
// their expansions together exceed MaxExpansionTotal, with little more memory than that.
func TestExpansionTotalLimit(t *testing.T) {
	var c strings.Builder
	c.WriteString(doublingEnv(64, 11)) // expands to 64 * (2^12 - 2) bytes
	for i := range 13 {
		fmt.Fprintf(&c, "    - {name: B%d, value: $(A11)}\n", i)
	}
	perContainer := 64*(1<<12-2) + 13*kube.MaxExpandedString
	fit := kube.MaxExpansionTotal / perContainer // containers whose expansions fit
	var m strings.Builder
	m.WriteString("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n")
	for i := range fit + 3 {
		fmt.Fprintf(&m, "  - name: c%d\n    image: busybox:1.36\n%s", i, c.String())
	}
	var err error
	allocated, _ := measure(func() { _, err = loadString(kube.Options{}, m.String()) })
	is := loadErrors(t, err)
	// One issue for each container that does not fit.
	want := []string{fmt.Sprintf("spec.containers[%d].env[", fit), fmt.Sprintf("spec.containers[%d].env[", fit+1),
		fmt.Sprintf("spec.containers[%d].env[", fit+2)}
	if len(is) != len(want) {
		t.Fatalf("issues %v, want %d", is, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(is[i].Path, w) || !strings.Contains(is[i].Message, fmt.Sprint(kube.MaxExpansionTotal)) {
			t.Errorf("issue %s, want at %s naming the limit", is[i], w)
		}
	}
	if allocated > 4*kube.MaxExpansionTotal {
		t.Errorf("Load allocated %d MiB", allocated>>20)
	}
}

// TestExpansionLimitsElsewhere: exec probe commands and subPathExpr are held to
// MaxExpandedString; env values read from ConfigMaps are too, not being expanded.
func TestExpansionLimitsElsewhere(t *testing.T) {
	big := strings.Repeat("y", kube.MaxExpandedString/2+1)
	env := "    env: [{name: B, value: " + big + "}]\n"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {k: " + strings.Repeat("z", kube.MaxExpandedString+1) + "}\n---\n"
	for _, tt := range []struct{ name, manifest, path string }{
		{"probe", pod("", env+"    livenessProbe: {exec: {command: [sh, \"$(B)$(B)\"]}}\n"), "spec.containers[0].livenessProbe.exec.command[1]"},
		{"subPathExpr", pod("  volumes: [{name: v, emptyDir: {}}]\n", env+"    volumeMounts: [{name: v, mountPath: /v, subPathExpr: \"$(B)$(B)\"}]\n"),
			"spec.containers[0].volumeMounts[0].subPathExpr"},
		{"configMapKeyRef", cm + pod("", "    env: [{name: C, valueFrom: {configMapKeyRef: {name: cm, key: k}}}]\n"), "spec.containers[0].env[0].valueFrom"},
		{"envFrom", cm + pod("", "    envFrom: [{configMapRef: {name: cm}}]\n"), "spec.containers[0].envFrom[0]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadString(kube.Options{}, tt.manifest)
			is := loadErrors(t, err)
			if len(is) != 1 || is[0].Path != tt.path || !strings.Contains(is[0].Message, fmt.Sprint(kube.MaxExpandedString)) {
				t.Fatalf("issues %v, want one at %s naming the limit", is, tt.path)
			}
		})
	}
}

// TestConvertExpansionBomb: Convert, given a decoded Pod, bounds the expansion as Load does.
func TestConvertExpansionBomb(t *testing.T) {
	env := []corev1.EnvVar{{Name: "A0", Value: strings.Repeat("x", 64)}}
	for i := 1; i <= 60; i++ {
		env = append(env, corev1.EnvVar{Name: fmt.Sprintf("A%d", i), Value: fmt.Sprintf("$(A%d)$(A%d)", i-1, i-1)})
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox:1.36", Env: env}}}}
	var err error
	allocated, _ := measure(func() { _, _, err = kube.Convert(p, kube.Objects{}, kube.Options{}) })
	is := loadErrors(t, err)
	if len(is) != 1 || is[0].Path != "spec.containers[0].env[12].value" {
		t.Fatalf("issues %v, want one at spec.containers[0].env[12].value", is)
	}
	if allocated > memoryBound {
		t.Errorf("Convert allocated %d MiB", allocated>>20)
	}
}

// endless is a reader that never ends, counting what is read from it.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '#'
	}
	e.read += int64(len(p))
	return len(p), nil
}

// TestManifestTooLong: a manifest over MaxManifestSize is refused, read no further than one
// byte past the limit, from a reader or a file; one of exactly the limit loads.
func TestManifestTooLong(t *testing.T) {
	r := &endless{}
	_, err := kube.Load(context.Background(), kube.Options{}, r)
	is := loadErrors(t, err)
	if len(is) != 1 || is[0].Path != kube.DocumentPath || !strings.Contains(is[0].Message, fmt.Sprint(kube.MaxManifestSize)) {
		t.Fatalf("issues %v, want one about the manifest's size", is)
	}
	if r.read > kube.MaxManifestSize+64<<10 { // LimitReader passes the reader's buffer as is
		t.Errorf("%d bytes read from an endless manifest", r.read)
	}

	valid := pod("", "")
	exact := valid + "#" + strings.Repeat("x", kube.MaxManifestSize-len(valid)-2) + "\n"
	if _, err := loadString(kube.Options{}, exact); err != nil {
		t.Fatalf("a manifest of exactly %d bytes: %v", len(exact), err)
	}
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, []byte(exact+"#\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The too long manifest is reported, and the others still are read.
	_, err = kube.LoadFiles(context.Background(), kube.Options{}, path, filepath.Join("testdata", "myapp-pod.yaml"))
	is = loadErrors(t, err)
	if len(is) != 1 || is[0].Document.File != path || is[0].Path != kube.DocumentPath {
		t.Fatalf("issues %v, want one about %s", is, path)
	}
	if _, err := kube.LoadFiles(context.Background(), kube.Options{}, "/dev/zero"); err == nil {
		t.Fatal("/dev/zero loaded")
	}
}

// TestYAMLAliasBombs: aliases that multiply nodes are refused by go-yaml's own bound;
// aliases of a long string, which go-yaml counts as one node each, are refused once the
// document would exceed MaxManifestSize, before it is converted; plain anchors still work.
func TestYAMLAliasBombs(t *testing.T) {
	laughs := "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n"
	for i, c := range "bcdefghi" {
		prev := string("abcdefghi"[i])
		laughs += fmt.Sprintf("%c: &%c [%s]\n", c, c, strings.TrimSuffix(strings.Repeat("*"+prev+",", 9), ","))
	}
	scalar := "kind: ConfigMap\napiVersion: v1\nmetadata: {name: c}\ndata:\n  k: &s " + strings.Repeat("x", 1<<20) +
		"\n  l: [" + strings.TrimSuffix(strings.Repeat("*s,", 999), ",") + "]\n"
	// Each document is small, but together they expand past the limit: the third is
	// refused, and the manifest is read no further.
	var spread strings.Builder
	for i := range 4 {
		fmt.Fprintf(&spread, "kind: ConfigMap\napiVersion: v1\nmetadata: {name: c%d}\ndata: {k: &s %s, l: *s}\n---\n", i, strings.Repeat("x", 512<<10))
	}
	for _, tt := range []struct{ name, manifest, message string }{
		{"billion laughs", laughs, "excessive aliasing"},
		{"long string", scalar, fmt.Sprint(kube.MaxManifestSize)},
		{"across documents", spread.String(), fmt.Sprint(kube.MaxManifestSize)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			allocated, _ := measure(func() { _, err = loadString(kube.Options{}, tt.manifest) })
			is := loadErrors(t, err)
			if len(is) != 1 || is[0].Path != kube.DocumentPath || !strings.Contains(is[0].Message, tt.message) {
				t.Fatalf("issues %v, want one at %s saying %q", is, kube.DocumentPath, tt.message)
			}
			if allocated > memoryBound {
				t.Errorf("Load allocated %d MiB", allocated>>20)
			}
		})
	}

	anchors := pod("", "    env: &env [{name: A, value: a}]\n") + "  - name: d\n    image: busybox:1.36\n    env: *env\n"
	res, err := loadString(kube.Options{}, anchors)
	if err != nil {
		t.Fatal(err)
	}
	if s := onePod(t, res); len(s.Containers) != 2 || len(s.Containers[1].Env) != 1 || s.Containers[1].Env[0].Value != "a" {
		t.Fatalf("anchored env not shared: %+v", s.Containers)
	}
}

// TestTooManyDocuments: a manifest may hold MaxDocuments documents, YAML or JSON; the next
// one is refused and ends the manifest.
func TestTooManyDocuments(t *testing.T) {
	cm := func(i int) string { return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n", i) }
	var yaml, json strings.Builder
	for i := range kube.MaxDocuments {
		if i > 0 { // and a pod
			fmt.Fprintf(&yaml, "%s---\n", cm(i))
		}
		fmt.Fprintf(&json, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d"}}`, i)
	}
	for name, m := range map[string]string{"YAML": yaml.String() + pod("", ""), "JSON": json.String()} {
		if _, err := loadString(kube.Options{}, m); err != nil {
			t.Fatalf("%s: %d documents: %v", name, kube.MaxDocuments, err)
		}
	}
	for name, m := range map[string]string{"YAML": yaml.String() + cm(-1) + "---\n" + pod("", ""),
		"JSON": json.String() + `{"kind":"ConfigMap"}{"kind":"ConfigMap"}`} {
		_, err := loadString(kube.Options{}, m)
		is := loadErrors(t, err)
		if len(is) != 1 || is[0].Document.Index != kube.MaxDocuments || is[0].Path != kube.DocumentPath ||
			!strings.Contains(is[0].Message, fmt.Sprint(kube.MaxDocuments)) {
			t.Fatalf("%s: issues %v, want one at document %d", name, is, kube.MaxDocuments)
		}
	}
}

// TestManyErrors: a pod of 10,000 containers of the same name (and an unknown field, of
// which the decoder reports 100) is reported whole, in time linear in its size: checking
// whether an error was already reported was quadratic.
func TestManyErrors(t *testing.T) {
	const n = 10000
	manifest := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n" +
		strings.Repeat("  - {name: c, image: busybox, foo: 1}\n", n)
	var err error
	_, took := measure(func() { _, err = loadString(kube.Options{}, manifest) })
	is := loadErrors(t, err)
	duplicates := 0
	for _, i := range is {
		if strings.HasSuffix(i.Path, ".name") && strings.HasPrefix(i.Message, "Duplicate value") {
			duplicates++
		}
	}
	if duplicates != n-1 {
		t.Fatalf("%d duplicate names reported of %d issues, want %d", duplicates, len(is), n-1)
	}
	if took > time.Minute {
		t.Errorf("Load took %v", took)
	}
}

// TestSharedObjectData: a large Secret or ConfigMap referred to many times (envFrom and
// secretKeyRef in many containers, volumes, imagePullSecrets) costs its size once: the specs
// share its data.
func TestSharedObjectData(t *testing.T) {
	const refs = 200
	value := strings.Repeat("v", kube.MaxExpandedString-64)
	var m strings.Builder
	m.WriteString("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData:\n")
	for i := range 8 { // 1 MiB
		fmt.Fprintf(&m, "  K%d: %s\n", i, value)
	}
	m.WriteString("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata:\n")
	for i := range 8 {
		fmt.Fprintf(&m, "  f%d: %s\n", i, value)
	}
	auths := `{"auths":{"r.example":{"auth":"dTpw"}}}`
	fmt.Fprintf(&m, "---\napiVersion: v1\nkind: Secret\nmetadata: {name: pull}\ntype: kubernetes.io/dockerconfigjson\nstringData: {.dockerconfigjson: '%s'}\n", auths)
	m.WriteString("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  imagePullSecrets:\n")
	m.WriteString(strings.Repeat("  - name: pull\n", refs))
	m.WriteString("  volumes:\n")
	for i := range refs {
		fmt.Fprintf(&m, "  - {name: v%d, configMap: {name: cm}}\n", i)
	}
	m.WriteString("  containers:\n")
	for i := range refs {
		fmt.Fprintf(&m, "  - {name: c%d, image: busybox, envFrom: [{secretRef: {name: s}}], env: [{name: X, valueFrom: {secretKeyRef: {name: s, key: K0}}}], volumeMounts: [{name: v%d, mountPath: /v}]}\n", i, i)
	}
	var res *kube.Result
	var err error
	allocated, _ := measure(func() { res, err = loadString(kube.Options{}, m.String()) })
	if err != nil {
		t.Fatal(err)
	}
	s := onePod(t, res)
	if len(s.Containers) != refs || len(s.Containers[refs-1].Env) != 9 || s.Containers[refs-1].Env[8].Value != value ||
		len(s.Volumes) != refs || len(s.PullCredentials) != 1 {
		t.Fatalf("%d containers, %d env, %d volumes, %d credentials", len(s.Containers), len(s.Containers[refs-1].Env), len(s.Volumes), len(s.PullCredentials))
	}
	// Copied for each reference, the data took over 1 GiB; decoding the 2 MiB manifest
	// itself takes some 20 MiB (more with -race).
	if allocated > 4*memoryBound {
		t.Errorf("Load allocated %d MiB", allocated>>20)
	}
}
