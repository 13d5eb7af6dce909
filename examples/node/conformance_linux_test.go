package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/v2/core/images"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/examples/node/internal/kubeletauth"
	"github.com/podlife/podlife/podlife/podlifetest"
)

// TestConformance runs Kubernetes' own node conformance suite (e2e.test of k8s.io/kubernetes
// test/e2e, built by hack/build-e2e.sh) against the control plane with one podlife-node as its
// only schedulable node, air-gapped: the test images it needs are built here (agnhost from
// test/images/agnhost, nnp of nonewprivs from test/images/nonewprivs, busybox and the images'
// base from the host's busybox-static: e2eImages) and pushed to a local
// docker-registry that KUBE_TEST_REPO_LIST points the suite at. `make conformance` runs it; it
// is skipped unless PODLIFE_CONFORMANCE=1, since it takes far longer than the other tests.
// PODLIFE_CONFORMANCE_GINKGO_ARGS adds ginkgo flags (such as --dry-run, or another --focus).
//
// The suite's report (junit_01.xml, e2e.log and table.md: test, result, time) goes to
// PODLIFE_CONFORMANCE_REPORT (default ../../.cache/conformance). The test fails when a spec
// of the focus fails; conformance-skip.txt lists, with reasons, the specs left out.
func TestConformance(t *testing.T) {
	if os.Getenv("PODLIFE_CONFORMANCE") != "1" {
		t.Skip("the node conformance suite: PODLIFE_CONFORMANCE=1 (make conformance)")
	}
	bin := k8sBin()
	suite := filepath.Join(bin, "e2e.test")
	agnhost := filepath.Join(bin, "agnhost")
	ginkgo := filepath.Join(bin, "ginkgo")
	nnp := filepath.Join(bin, "nnp")
	for _, f := range []string{suite, agnhost, ginkgo, nnp} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%v: build it with hack/build-e2e.sh %s", err, bin)
		}
	}
	report, err := filepath.Abs(os.Getenv("PODLIFE_CONFORMANCE_REPORT"))
	if os.Getenv("PODLIFE_CONFORMANCE_REPORT") == "" {
		report, err = filepath.Abs("../../.cache/conformance")
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(report); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(report, 0o755); err != nil {
		t.Fatal(err)
	}
	skips, err := readSkipList("conformance-skip.txt")
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	reg, err := podlifetest.StartRegistry(ctx, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reg.Close() })
	start := time.Now()
	if err := pushTestImages(ctx, reg, agnhost, nnp); err != nil {
		t.Fatal(err)
	}
	t.Logf("test images built and pushed to %s in %v", reg.Addr(), time.Since(start).Round(time.Second))
	repoList := filepath.Join(env.dir, "repo-list.yaml")
	if err := os.WriteFile(repoList, []byte(repoListYAML(reg.Addr())), 0o644); err != nil {
		t.Fatal(err)
	}

	tn := startNodeWith(t, "") // untainted: the suite's pods carry no toleration
	// The images the suite pulled are not leaks: remove them before the node's leak check
	// (cleanups run last registered first).
	t.Cleanup(func() { removeImages(tn.ns, testImage) })
	// The ginkgo CLI runs the suite's parallel specs on PODLIFE_CONFORMANCE_PROCS processes
	// (default 4), then its [Serial] ones alone, as upstream's hack/ginkgo-e2e.sh does.
	procs := 4
	if p := os.Getenv("PODLIFE_CONFORMANCE_PROCS"); p != "" {
		if procs, err = strconv.Atoi(p); err != nil || procs < 1 {
			t.Fatalf("PODLIFE_CONFORMANCE_PROCS=%q: want a positive number", p)
		}
	}
	// PODLIFE_CONFORMANCE_FOCUS replaces the focus (a ginkgo --focus given in
	// PODLIFE_CONFORMANCE_GINKGO_ARGS would widen it: ginkgo ORs its focuses), to rerun a few
	// specs; the table still counts only specs of conformanceFocus.
	focus := cmp.Or(os.Getenv("PODLIFE_CONFORMANCE_FOCUS"), conformanceFocus)
	args := []string{
		fmt.Sprintf("--procs=%d", procs), "--focus", focus, "--skip", strings.Join(skips, "|"),
		"--no-color", "--timeout", "6h",
	}
	if extra := os.Getenv("PODLIFE_CONFORMANCE_GINKGO_ARGS"); extra != "" {
		args = append(args, strings.Fields(extra)...)
	}
	args = append(args, suite, "--",
		"--kubeconfig", env.cp.kubeconfig, "--provider", "skeleton",
		"--kubectl-path", env.kubectl, "--report-dir", report)
	logFile, err := os.Create(filepath.Join(report, "e2e.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(ginkgo, args...)
	cmd.Env = append(os.Environ(), "KUBE_TEST_REPO_LIST="+repoList)
	cmd.Dir = report
	cmd.Stdout = io.MultiWriter(logFile, os.Stdout)
	cmd.Stderr = cmd.Stdout
	t.Logf("node %s; running %s %s", tn.name, ginkgo, shellQuote(args))
	start = time.Now()
	runErr := cmd.Run()
	took := time.Since(start).Round(time.Second)

	res, err := readJUnit(filepath.Join(report, "junit_01.xml"), regexp.MustCompile(conformanceFocus))
	if err != nil {
		t.Fatalf("suite: %v; report: %v", runErr, err)
	}
	if err := os.WriteFile(filepath.Join(report, "table.md"), []byte(res.table()), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := res.summary()
	t.Logf("conformance: %s in %v (report in %s)", sum, took, report)
	fmt.Printf("=== conformance summary: %s in %v; table in %s\n", sum, took, filepath.Join(report, "table.md"))
	for _, c := range res.cases {
		if c.result == "failed" {
			t.Errorf("failed: %s", c.name)
		}
	}
	if runErr != nil && !t.Failed() {
		t.Errorf("e2e.test: %v (see %s)", runErr, logFile.Name())
	}
}

// k8sBin is where the control plane, e2e.test and agnhost are.
func k8sBin() string {
	if b := os.Getenv("PODLIFE_K8S_BIN"); b != "" {
		return b
	}
	return "/var/cache/podlife/k8s-v1.37.2"
}

// readSkipList returns the regular expressions of the skip list: one a line, "# reason" after
// it; blank lines and lines starting with # are comments.
func readSkipList(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		re, reason, ok := strings.Cut(line, " # ")
		if !ok || strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("%s:%d: no reason (REGEX # REASON)", path, n)
		}
		out = append(out, strings.TrimSpace(re))
	}
	return out, sc.Err()
}

// e2eImage is an image of the suite's (test/utils/image/manifest.go) and how it is built: the
// busybox image, with what its Dockerfile in k8s.io/kubernetes test/images adds.
type e2eImage struct {
	name string // in the registry
	kind imageKind
}

type imageKind int

const (
	busyboxImage    imageKind = iota // busybox as is
	agnhostImage                     // test/images/agnhost
	pauseImage                       // pause: agnhost's pause subcommand
	nonrootImage                     // test/images/nonroot: busybox with USER 1234
	nonewprivsImage                  // test/images/nonewprivs: nnp, setuid root, as Cmd
	kittenImage                      // test/images/kitten: agnhost with data.json, Cmd test-webserver
)

// e2eImages are the images the focus uses that can be built here. agnhost is agnhost on
// busybox as upstream's Dockerfile has it (/agnhost, the /agnhost-2 symlink, entrypoint
// /agnhost with Cmd pause, the user-defined-in-image user 1000 and group 50000), with a curl
// of busybox wget (curlShim) and a bash of busybox ash (bashShim); pause is agnhost's pause subcommand (the same process: it waits
// for a signal and exits 0); kitten is agnhost with upstream's data.json; glibc-dns-testing is
// busybox. Not built: nginx and the other images of the manifest; their specs fail to pull.
var e2eImages = []e2eImage{
	{name: "e2e-test-images/busybox:1.37.0-2", kind: busyboxImage},
	{name: "e2e-test-images/agnhost:2.66.1", kind: agnhostImage},
	{name: "e2e-test-images/agnhost:2.55", kind: agnhostImage},
	{name: "pause:3.10.2", kind: pauseImage},
	{name: "e2e-test-images/nonroot:1.5", kind: nonrootImage},
	{name: "e2e-test-images/nonewprivs:1.4", kind: nonewprivsImage},
	{name: "e2e-test-images/kitten:1.8", kind: kittenImage},
	// Upstream's is a glibc image, for hostname -f; busybox's hostname -f reads /etc/hosts too.
	{name: "e2e-test-images/glibc-dns-testing:2.1.1", kind: busyboxImage},
}

// agnhostPasswd and agnhostGroup are busybox's /etc/passwd and /etc/group with the user and
// group upstream's agnhost image adds (adduser -u 1000 user-defined-in-image, addgroup -g
// 50000 group-defined-in-image).
const (
	agnhostPasswd = "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n" +
		"user-defined-in-image:x:1000:1000::/home/user-defined-in-image:/bin/sh\n"
	agnhostGroup = "root:x:0:\nnobody:x:65534:\nuser-defined-in-image:x:1000:\n" +
		"group-defined-in-image:x:50000:user-defined-in-image\n"
)

// options returns how img is built, from the agnhost and nnp binaries and the agnhost image's
// /localhost.crt and /localhost.key (upstream's are test/images/agnhost/porter's, for
// "agnhost netexec --tls-cert-file /localhost.crt": the HTTPS hook specs' server).
func (img e2eImage) options(agnhost, nnp []byte, localhost *kubeletauth.Certificate) []podlifetest.BusyboxOption {
	switch img.kind {
	case agnhostImage:
		return img.agnhost(agnhost, localhost)
	case kittenImage:
		// The ImageVolume spec mounts it and reads data.json and etc/os-release (upstream's
		// is Alpine's, which it checks for "Alpine Linux": said here of the stand-in).
		return append(img.agnhost(agnhost, localhost),
			podlifetest.WithFile("data.json", []byte("{\n  \"image\": \"kitten.jpg\"\n}\n")),
			podlifetest.WithFile("etc/os-release", []byte(kittenOSRelease)), podlifetest.WithCmd("test-webserver"))
	case pauseImage:
		return []podlifetest.BusyboxOption{podlifetest.WithExecutable("agnhost", agnhost), podlifetest.WithEntrypoint("/agnhost", "pause")}
	case nonrootImage:
		return []podlifetest.BusyboxOption{podlifetest.WithUser("1234")}
	case nonewprivsImage:
		// Upstream's is /usr/local/bin/nnp (chmod +s); busybox's PATH has /usr/bin.
		return []podlifetest.BusyboxOption{podlifetest.WithExecutableMode("usr/bin/nnp", 0o6755, nnp), podlifetest.WithCmd("nnp")}
	}
	return nil
}

// agnhost is the agnhost image's content (the kitten image's base).
func (e2eImage) agnhost(agnhost []byte, localhost *kubeletauth.Certificate) []podlifetest.BusyboxOption {
	return []podlifetest.BusyboxOption{
		podlifetest.WithExecutable("agnhost", agnhost), podlifetest.WithSymlink("agnhost-2", "agnhost"),
		podlifetest.WithExecutable("usr/bin/curl", []byte(curlShim)), podlifetest.WithExecutable("bin/bash", []byte(bashShim)),
		podlifetest.WithFile("etc/passwd", []byte(agnhostPasswd)), podlifetest.WithFile("etc/group", []byte(agnhostGroup)),
		podlifetest.WithFile("localhost.crt", localhost.CertPEM), podlifetest.WithFile("localhost.key", localhost.KeyPEM),
		podlifetest.WithEntrypoint("/agnhost"), podlifetest.WithCmd("pause"),
	}
}

// kittenOSRelease is the kitten image's /etc/os-release: upstream's image is Alpine's.
const kittenOSRelease = `NAME="Alpine Linux (stand-in: busybox, podlife's conformance test image)"
ID=alpine
`

// curlShim is the agnhost image's curl: upstream's image is Alpine with curl, which the suite's
// hooks and probes call as "curl [flags] URL" for a GET; busybox's wget does the same. Its
// timeout is busybox's timeout applet: the wget of Debian's busybox 1.35 segfaults with -T.
const curlShim = `#!/bin/sh
# curl stand-in (podlife's agnhost test image): a GET with busybox wget.
url=; out=-; timeout=
while [ $# -gt 0 ]; do
  case "$1" in
    -o|--output) out=$2; shift ;;
    -m|--max-time|--connect-timeout) timeout=$2; shift ;;
    -X|-H|-d|--data|-w|-u|--retry|-A) shift ;;
    -*) ;;
    *) url=$1 ;;
  esac
  shift
done
exec ${timeout:+timeout "$timeout"} wget -q -O "$out" "$url"
`

// bashShim is the agnhost image's bash: upstream's image is Alpine with bash, which some specs
// run as "/bin/bash -c SCRIPT" (the probe specs' SIGTERM traps); their scripts are POSIX sh,
// which busybox ash runs.
const bashShim = `#!/bin/sh
# bash stand-in (podlife's agnhost test image): busybox ash.
exec /bin/sh "$@"
`

// pushTestImages builds e2eImages and pushes them to reg, through a containerd namespace of
// their own that it removes.
func pushTestImages(ctx context.Context, reg *podlifetest.Registry, agnhost, nnp string) error {
	bin, err := os.ReadFile(agnhost)
	if err != nil {
		return err
	}
	nnpBin, err := os.ReadFile(nnp)
	if err != nil {
		return err
	}
	localhost, err := kubeletauth.NewCertificate("localhost", false, []string{"localhost", "127.0.0.1"}, nil)
	if err != nil {
		return err
	}
	ns := "plc-" + env.runID + "-images"
	nctx := namespaces.WithNamespace(ctx, ns)
	defer func() {
		is := env.client.ImageService()
		if imgs, err := is.List(nctx); err == nil {
			for _, i := range imgs {
				_ = is.Delete(nctx, i.Name, images.SynchronousDelete())
			}
		}
		_ = env.client.NamespaceService().Delete(nctx, ns)
	}()
	for _, img := range e2eImages {
		local := "podlife.test/" + img.name
		var archive bytes.Buffer
		if err := podlifetest.BusyboxArchive(&archive, local, img.options(bin, nnpBin, localhost)...); err != nil {
			return err
		}
		if _, err := env.client.Import(nctx, &archive); err != nil {
			return fmt.Errorf("import %s: %w", local, err)
		}
		if err := reg.Push(nctx, env.client, local, img.name); err != nil {
			return err
		}
	}
	return nil
}

// removeImages removes the images of containerd namespace ns but keep.
func removeImages(ns, keep string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	nctx := namespaces.WithNamespace(ctx, ns)
	is := env.client.ImageService()
	imgs, err := is.List(nctx)
	if err != nil {
		return
	}
	for _, i := range imgs {
		if i.Name != keep {
			_ = is.Delete(nctx, i.Name)
		}
	}
}

// repoListYAML is KUBE_TEST_REPO_LIST's file: every registry of the suite's images on addr,
// except the invalid one, which must stay invalid.
func repoListYAML(addr string) string {
	return fmt.Sprintf(`promoterE2eRegistry: %[1]s/e2e-test-images
buildImageRegistry: %[1]s/build-image
gcEtcdRegistry: %[1]s
gcRegistry: %[1]s
sigStorageRegistry: %[1]s/sig-storage
privateRegistry: %[1]s/k8s-authenticated-test
dockerLibraryRegistry: %[1]s/library
cloudProviderGcpRegistry: %[1]s/cloud-provider-gcp
`, addr)
}

// shellQuote renders args for a shell, for the log and the docs.
func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " |\\[]()*$'\"") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
