package warmpool

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Key is the pool key of an admitted pod spec (defaults applied): a hash of everything that
// shapes what a member creates before its name is known (sandbox, volumes, the created
// processes' OCI specs), and of nothing else. Left out: the name, the hostname when it is the
// name's default, the labels (only containerd's labels hold them: set at take), and what acts
// only once a process runs and is taken from the spec at take time (the start policy,
// lifecycle hooks, probes). The caller adds the image digests (see
// Member.Images): a member is kept for the images it was made from.
func Key(spec api.PodSpec) (string, error) {
	s := spec
	if s.Hostname == s.Name {
		s.Hostname = ""
	}
	s.Name, s.Labels = "", nil
	s.StartPolicy = nil
	s.InitContainers = strip(s.InitContainers)
	s.Containers = strip(s.Containers)
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("hash the spec: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12]), nil
}

func strip(cs []api.ContainerSpec) []api.ContainerSpec {
	out := make([]api.ContainerSpec, len(cs))
	for i, c := range cs {
		c.PostStart, c.PreStop = nil, nil
		c.StartupProbe, c.ReadinessProbe, c.LivenessProbe = nil, nil, nil
		out[i] = c
	}
	return out
}

// NotPoolableError says why a spec cannot be pooled: a field whose value would differ from
// pod to pod in what a member creates before its name is known.
type NotPoolableError struct {
	Field  string // the field path, e.g. "containers[0].env[POD_NAME]"
	Reason string
}

func (e *NotPoolableError) Error() string {
	return fmt.Sprintf("spec not poolable: %s: %s", e.Field, e.Reason)
}

// Poolable checks an admitted spec for Prewarm: nil, or a *NotPoolableError naming the first
// field that keeps it out of a pool (see Takeable, and NameFree).
func Poolable(spec api.PodSpec) error {
	if err := Takeable(spec); err != nil {
		return err
	}
	return NameFree(spec)
}

// Takeable checks what the key cannot see (Run's check before a take): hostPorts, which every
// member would hold at once, and an OCIHook, Go code that shapes the created process.
func Takeable(spec api.PodSpec) error {
	for _, set := range []struct {
		field string
		cs    []api.ContainerSpec
	}{{"initContainers", spec.InitContainers}, {"containers", spec.Containers}} {
		for i, c := range set.cs {
			at := fmt.Sprintf("%s[%d]", set.field, i)
			if c.OCIHook != nil {
				return &NotPoolableError{Field: at + ".ociHook", Reason: "Go code shapes the created process; a pool cannot match it"}
			}
			for j, p := range c.Ports {
				if p.HostPort != 0 {
					return &NotPoolableError{Field: fmt.Sprintf("%s.ports[%d].hostPort", at, j), Reason: "every member would hold the host port"}
				}
			}
		}
	}
	return nil
}

// NameFree checks that nothing a member creates before its name is known holds the spec's
// name (as a word: not inside a longer name): an environment variable (what the downward API's
// metadata.name becomes), an argument, the working dir, a file of a files volume. Such a spec
// would never match another name's; Prewarm refuses it, naming the field.
func NameFree(spec api.PodSpec) error {
	name := spec.Name
	if name == "" {
		return nil
	}
	for _, set := range []struct {
		field string
		cs    []api.ContainerSpec
	}{{"initContainers", spec.InitContainers}, {"containers", spec.Containers}} {
		for i, c := range set.cs {
			at := fmt.Sprintf("%s[%d]", set.field, i)
			for _, e := range c.Env {
				if holdsName(e.Value, name) {
					return &NotPoolableError{Field: fmt.Sprintf("%s.env[%s]", at, e.Name), Reason: "holds the pod's name (downward API metadata.name?), fixed in the process before the name is known"}
				}
			}
			for j, a := range append(append([]string{}, c.Command...), c.Args...) {
				if holdsName(a, name) {
					return &NotPoolableError{Field: fmt.Sprintf("%s.command/args[%d]", at, j), Reason: "holds the pod's name, fixed in the process before the name is known"}
				}
			}
			if holdsName(c.WorkingDir, name) {
				return &NotPoolableError{Field: at + ".workingDir", Reason: "holds the pod's name"}
			}
		}
	}
	for _, v := range spec.Volumes {
		if v.Files == nil {
			continue
		}
		for _, f := range v.Files.Files {
			if holdsName(string(f.Data), name) {
				return &NotPoolableError{Field: fmt.Sprintf("volumes[%s].files[%s]", v.Name, f.Path), Reason: "holds the pod's name (downward API volume?), written before the name is known"}
			}
		}
	}
	return nil
}

// holdsName reports whether s holds name as a word: not preceded or followed by a character
// a pod name (a DNS label) may have: a-z, 0-9, '-'.
func holdsName(s, name string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !nameChar(s[start-1])) && (end == len(s) || !nameChar(s[end])) {
			return true
		}
		i = start + 1
	}
}

func nameChar(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-'
}
