package podlife_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube"
)

// secretMarkers are the values of one run of TestSecretsStayOffDisk, by where they go: each a
// unique random string, so that finding one in a file proves where it came from.
type secretMarkers map[string]string

func newSecretMarkers(t *testing.T, names ...string) secretMarkers {
	t.Helper()
	m := secretMarkers{}
	for _, n := range names {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
		m[n] = "sekret" + hex.EncodeToString(b)
	}
	return m
}

// assertNoSecretOnDisk walks every regular file under dir (a mounted tmpfs, such as a secret
// volume, is memory: skipped) and fails on any marker, as it is or base64-encoded (how JSON
// keeps []byte).
func assertNoSecretOnDisk(t *testing.T, when, dir string, m secretMarkers) {
	t.Helper()
	var rootDev uint64
	if fi, err := os.Stat(dir); err == nil {
		rootDev = uint64(fi.Sys().(*syscall.Stat_t).Dev)
	}
	files, found := 0, 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while walking (a .tmp file renamed)
			}
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if uint64(fi.Sys().(*syscall.Stat_t).Dev) != rootDev {
				return filepath.SkipDir // a mount: a tmpfs volume, or a pinned namespace
			}
			return nil
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		files++
		for what, v := range m {
			forms := map[string]string{"as it is": v, "base64": base64.StdEncoding.EncodeToString([]byte(v)),
				"base64 unpadded": base64.RawStdEncoding.EncodeToString([]byte(v))}
			for form, s := range forms {
				if bytes.Contains(b, []byte(s)) {
					t.Errorf("%s: %s holds the secret value of %s (%s)", when, path, what, form)
					found++
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: walk %s: %v", when, dir, err)
	}
	if files == 0 {
		t.Fatalf("%s: no file under %s", when, dir)
	}
	if found == 0 {
		t.Logf("%s: %d files under the state dir hold no secret value", when, files)
	}
}

// secretManifest is a pod using Secrets every way a manifest can: a secret volume, env
// valueFrom.secretKeyRef, envFrom.secretRef, and the secret env expanded in args.
func secretManifest(name string, m secretMarkers) string {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	return fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata: {name: creds}
data: {password: %s, tls.key: %s}
---
apiVersion: v1
kind: Secret
metadata: {name: bulk}
stringData: {BULK_TOKEN: %s}
---
apiVersion: v1
kind: Pod
metadata: {name: %s}
spec:
  terminationGracePeriodSeconds: 3
  volumes:
  - {name: sec, secret: {secretName: creds}}
  containers:
  - name: app
    image: %s
    command: [/bin/sh, -c, "%s"]
    args: ["$(PASSWORD)"]
    env:
    - name: PASSWORD
      valueFrom: {secretKeyRef: {name: creds, key: password}}
    envFrom:
    - secretRef: {name: bulk}
    volumeMounts:
    - {name: sec, mountPath: /sec, readOnly: true}
`, b64(m["secretKeyRef"]), b64(m["secret volume"]), m["envFrom"], name, testImage, loopForever)
}

func loadSecretPod(t *testing.T, name string, m secretMarkers) podlife.PodSpec {
	t.Helper()
	res, err := kube.Load(context.Background(), kube.Options{}, strings.NewReader(secretManifest(name, m)))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if len(res.Pods) != 1 {
		t.Fatalf("%d pods loaded", len(res.Pods))
	}
	return res.Pods[0].Spec
}

// goSecretPod is a pod a Go program builds with secret material: a files volume on a tmpfs,
// env values, and pull credentials.
func goSecretPod(name string, m secretMarkers) podlife.PodSpec {
	return podlife.PodSpec{
		Name: name, TerminationGracePeriod: ptr(3 * time.Second),
		PullCredentials: []podlife.RegistryCredential{{Registry: "registry.invalid", Username: "u", Password: m["pull password"]}},
		Volumes: []podlife.Volume{{Name: "keys", Files: &podlife.FilesVolume{Medium: podlife.MediumMemory,
			Files: []podlife.File{{Path: "key.pem", Data: []byte(m["files volume"]), Mode: 0o400}}}}},
		Containers: []podlife.ContainerSpec{{
			Name: "app", Image: testImage, Command: []string{"/bin/sh", "-c", loopForever},
			Env:          []podlife.EnvVar{{Name: "API_KEY", Value: m["go env"]}},
			VolumeMounts: []podlife.VolumeMount{{Name: "keys", MountPath: "/keys"}},
		}},
	}
}

// Attack: read the state dir (a backup, a copied pod dir, a support bundle) for the pods'
// secrets. The pods get them every way (secret volume, secretKeyRef, envFrom, $(VAR) in args,
// a Go files volume, Go env, pull credentials); the containers have them (checked), yet no
// file under the state dir holds one, while the pods run unmanaged, once adopted, and once
// stopped. The fingerprints the record keeps still tell a changed secret: Adopt refuses it,
// naming the field.
func TestSecretsStayOffDisk(t *testing.T) {
	h := newHarness(t)
	first := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m := newSecretMarkers(t, "secretKeyRef", "secret volume", "envFrom", "files volume", "go env", "pull password")
	kubeSpec := loadSecretPod(t, "kube-secrets", m)
	goSpec := goSecretPod("go-secrets", m)
	t.Cleanup(func() {
		// The pods of first, even if the test failed before adopting them (the harness
		// removes those of h.rt only).
		_ = first.Close()
		cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
		defer ccancel()
		for _, name := range []string{kubeSpec.Name, goSpec.Name} {
			if _, err := h.rt.Pod(name); err == nil {
				continue
			}
			if err := removePod(cctx, h.rt, name); err != nil && !errors.Is(err, podlife.ErrNotFound) {
				t.Errorf("remove %s: %v", name, err)
			}
		}
	})
	for _, spec := range []podlife.PodSpec{kubeSpec, goSpec} {
		if _, err := first.Run(ctx, spec); err != nil {
			t.Fatalf("Run %s: %v", spec.Name, err)
		}
	}
	// The containers have their secrets.
	checks := map[string][]string{
		"kube-secrets": {`printf %s "$PASSWORD $BULK_TOKEN "; tr '\0' '\n' </proc/1/cmdline | tail -n1; cat /sec/tls.key`,
			m["secretKeyRef"] + " " + m["envFrom"] + " " + m["secretKeyRef"] + "\n" + m["secret volume"]},
		"go-secrets": {`printf %s "$API_KEY"; cat /keys/key.pem`, m["go env"] + m["files volume"]},
	}
	for name, c := range checks {
		p, err := first.Pod(name)
		if err != nil {
			t.Fatal(err)
		}
		res, err := execOutput(ctx, p, "app", []string{"/bin/sh", "-c", c[0]})
		if err != nil || string(res.Output) != c[1] {
			t.Fatalf("%s: the container's secrets: %q %v, want %q", name, res.Output, err, c[1])
		}
	}
	assertNoSecretOnDisk(t, "running", h.stateDir, m)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	assertNoSecretOnDisk(t, "unmanaged", h.stateDir, m)

	// Only a secret value changed: the adoption is refused, naming the field.
	changed := newSecretMarkers(t, "secretKeyRef", "secret volume", "envFrom", "files volume", "go env", "pull password")
	goChanged := goSecretPod("go-secrets", m)
	goChanged.Containers[0].Env[0].Value = changed["go env"]
	kubeChanged := loadSecretPod(t, "kube-secrets", secretMarkers{"secretKeyRef": m["secretKeyRef"], "secret volume": m["secret volume"], "envFrom": changed["envFrom"]})
	kubeVolChanged := loadSecretPod(t, "kube-secrets", secretMarkers{"secretKeyRef": m["secretKeyRef"], "secret volume": changed["secret volume"], "envFrom": m["envFrom"]})
	for _, c := range []struct {
		spec podlife.PodSpec
		want string
	}{{goChanged, "containers[app].env"}, {kubeChanged, "containers[app].env"}, {kubeVolChanged, "volumes"}} {
		var sc *podlife.SpecChangedError
		if _, err := h.rt.Adopt(ctx, c.spec); !errors.As(err, &sc) || !slices.Equal(sc.Fields, []string{c.want}) {
			t.Errorf("Adopt %s with a changed secret: %v, want a SpecChangedError naming only %s", c.spec.Name, err, c.want)
		}
	}
	// The same specs adopt.
	for _, spec := range []podlife.PodSpec{kubeSpec, goSpec} {
		p, err := h.rt.Adopt(ctx, spec)
		if err != nil {
			t.Fatalf("Adopt %s: %v", spec.Name, err)
		}
		if st := p.Status(); st.Phase != podlife.PhaseRunning {
			t.Errorf("adopted %s: phase %s, want Running", spec.Name, st.Phase)
		}
	}
	assertNoSecretOnDisk(t, "adopted", h.stateDir, m)
	for _, p := range h.rt.Pods() {
		if err := p.Stop(ctx); err != nil {
			t.Fatalf("Stop %s: %v", p.Name(), err)
		}
	}
	assertNoSecretOnDisk(t, "stopped", h.stateDir, m)
}

// A pod.json written before keyed fingerprints (env values and files data in its spec, bare
// hashes) still adopts against its fingerprints (a changed env value is refused, naming the
// field), and the adoption rewrites it without the values; another such pod is removed
// without a manager. A pod stopped without a manager (Pod.Stop) keeps the fingerprints of the
// spec it was started with: it adopts with that spec afterwards.
func TestAdoptLegacyRecord(t *testing.T) {
	h := newHarness(t)
	first := h.another(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m := newSecretMarkers(t, "files volume", "go env", "pull password")
	names := []string{"legacy", "legacy-rm", "stopped-new"}
	t.Cleanup(func() {
		_ = first.Close()
		cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
		defer ccancel()
		for _, name := range names {
			if _, err := h.rt.Pod(name); err == nil {
				continue
			}
			if err := removePod(cctx, h.rt, name); err != nil && !errors.Is(err, podlife.ErrNotFound) {
				t.Errorf("remove %s: %v", name, err)
			}
		}
	})
	specs := map[string]podlife.PodSpec{}
	for _, name := range names {
		specs[name] = goSecretPod(name, m)
		p, err := first.Run(ctx, specs[name])
		if err != nil {
			t.Fatalf("Run %s: %v", name, err)
		}
		if name == "stopped-new" {
			continue
		}
		if err := p.WriteLegacyRecord(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(h.stateDir, "pods", name, "pod.json")); !bytes.Contains(b, []byte(m["go env"])) || !bytes.Contains(b, []byte(`"specHash"`)) {
			t.Fatalf("%s: the legacy record is not the old format: %s", name, b)
		}
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	changed := goSecretPod("legacy", m)
	changed.Containers[0].Env[0].Value = "another value"
	var sc *podlife.SpecChangedError
	if _, err := h.rt.Adopt(ctx, changed); !errors.As(err, &sc) || !slices.Equal(sc.Fields, []string{"containers[app].env"}) {
		t.Errorf("Adopt of a legacy record with a changed env value: %v, want a SpecChangedError naming containers[app].env", err)
	}
	p, err := h.rt.Adopt(ctx, specs["legacy"])
	if err != nil {
		t.Fatalf("Adopt of a legacy record: %v", err)
	}
	if st := p.Status(); st.Phase != podlife.PhaseRunning {
		t.Errorf("adopted legacy pod: phase %s", st.Phase)
	}
	b, err := os.ReadFile(filepath.Join(h.stateDir, "pods", "legacy", "pod.json"))
	if err != nil || bytes.Contains(b, []byte(m["go env"])) || bytes.Contains(b, []byte(`"specHash"`)) || !bytes.Contains(b, []byte(`"specMAC"`)) {
		t.Errorf("the adopter's record still has the old format (%v): %s", err, b)
	}

	// Removed without a manager, from the legacy record's spec.
	if err := removePod(ctx, h.rt, "legacy-rm"); err != nil {
		t.Fatalf("Pod.Remove of a legacy record: %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.stateDir, "pods", "legacy-rm")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("legacy-rm's directory: %v", err)
	}

	// Stopped without a manager, from a record without values: the fingerprints stay those
	// of the full spec.
	if err := stopPod(ctx, h.rt, "stopped-new"); err != nil {
		t.Fatalf("Pod.Stop: %v", err)
	}
	if _, err := h.rt.Adopt(ctx, withChangedEnv(specs["stopped-new"])); !errors.As(err, &sc) || !slices.Equal(sc.Fields, []string{"containers[app].env"}) {
		t.Errorf("Adopt of a stopped pod with a changed env value: %v, want a SpecChangedError naming containers[app].env", err)
	}
	sp, err := h.rt.Adopt(ctx, specs["stopped-new"])
	if err != nil {
		t.Fatalf("Adopt after Pod.Stop: %v", err)
	}
	if st := sp.Status(); len(st.ContainerStatuses) != 1 || st.ContainerStatuses[0].State.Running != nil {
		t.Errorf("the stopped pod adopted with a running container: %+v", st.ContainerStatuses)
	}
	assertNoSecretOnDisk(t, "after the adoptions", h.stateDir, m)
}

// withChangedEnv is spec with its env value changed.
func withChangedEnv(spec podlife.PodSpec) podlife.PodSpec {
	spec.Containers = slices.Clone(spec.Containers)
	spec.Containers[0].Env = []podlife.EnvVar{{Name: spec.Containers[0].Env[0].Name, Value: "changed"}}
	return spec
}
