package podlife

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/podlife/podlife/podlife/internal/specfp"
	"github.com/podlife/podlife/podlife/internal/worker/record"
)

var testSpecKey = bytes.Repeat([]byte{7}, specfp.KeyLen)

// A keyed fingerprint of a secret value cannot be checked without the key: it is neither the
// bare hash older records kept nor the one under another key, and equal values of two fields
// do not show as equal fingerprints.
func TestSpecFieldsKeyed(t *testing.T) {
	s := baseSpec()
	s.Containers[0].Env = []EnvVar{{Name: "PASSWORD", Value: "hunter2"}}
	s.Containers[0].Command, s.Containers[0].Args = []string{"hunter2"}, []string{"hunter2"}
	other := bytes.Repeat([]byte{8}, specfp.KeyLen)
	keyed, otherKey, bare := specfp.Fields(s, testSpecKey), specfp.Fields(s, other), specfp.Fields(s, nil)
	const f = "containers[web].env"
	guess := sha256.Sum256([]byte(specfp.Describe(reflect.ValueOf(s.Containers[0].Env), 0)))
	if keyed[f] == otherKey[f] || keyed[f] == bare[f] || keyed[f] == hex.EncodeToString(guess[:8]) {
		t.Errorf("env fingerprint %s: same under another key (%s) or as the bare hash (%s)", keyed[f], otherKey[f], bare[f])
	}
	if bare[f] != hex.EncodeToString(guess[:8]) {
		t.Errorf("the unkeyed fingerprint older records have changed: %s", bare[f])
	}
	if bare["containers[web].args"] != bare["containers[web].command"] || keyed["containers[web].args"] == keyed["containers[web].command"] {
		t.Error("equal command and args: the keyed fingerprints are equal too")
	}
	if !reflect.DeepEqual(keyed, specfp.Fields(s, testSpecKey)) {
		t.Error("keyed fingerprints are not stable")
	}
	s.Containers[0].Env[0].Value = "hunter3"
	if d := specfp.Diff(keyed, specfp.Fields(s, testSpecKey)); strings.Join(d, " ") != f {
		t.Errorf("a changed env value: diff %q, want [%s]", d, f)
	}
}

// The state dir's key is made once, 0600, and every caller (several at once) gets that one.
func TestSpecKeyFile(t *testing.T) {
	dir := t.TempDir()
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := specfp.LoadKey(dir)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	for _, k := range keys {
		if len(k) != specfp.KeyLen || !bytes.Equal(k, keys[0]) {
			t.Fatalf("keys differ: %x vs %x", k, keys[0])
		}
	}
	fi, err := os.Stat(filepath.Join(dir, specfp.KeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left in the state dir: %d entries", len(entries))
	}
	if err := os.WriteFile(filepath.Join(dir, specfp.KeyFile), []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := specfp.LoadKey(dir); err == nil || !strings.Contains(err.Error(), "has 5 bytes") {
		t.Errorf("a truncated key: %v", err)
	}
}

// The record's spec keeps no value: env, command, args and files volumes' data are gone
// (paths and modes stay), and the pod's own spec is untouched.
func TestStoppableSpecHasNoValues(t *testing.T) {
	s := baseSpec()
	s.Containers[0].Env = []EnvVar{{Name: "K", Value: "v"}}
	s.Volumes = []Volume{{Name: "f", Files: &FilesVolume{Medium: MediumMemory, Files: []File{{Path: "a", Data: []byte("secret"), Mode: 0o400}}}}}
	s.PullCredentials = []RegistryCredential{{Registry: "r", Password: "pw"}}
	got := record.StoppableSpec(s)
	c := got.Containers[0]
	if c.Env != nil || c.Command != nil || c.Args != nil || got.PullCredentials != nil {
		t.Errorf("values kept: %+v", c)
	}
	f := got.Volumes[0].Files
	if f.Medium != MediumMemory || len(f.Files) != 1 || f.Files[0].Path != "a" || f.Files[0].Mode != 0o400 || f.Files[0].Data != nil {
		t.Errorf("files volume: %+v", f)
	}
	if string(s.Volumes[0].Files.Files[0].Data) != "secret" || s.Containers[0].Env[0].Value != "v" {
		t.Error("the pod's spec was changed")
	}
}
