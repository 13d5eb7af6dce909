package warmpool

import (
	"errors"
	"testing"

	"github.com/podlife/podlife/hook"
	"github.com/podlife/podlife/podlife/internal/api"
)

func spec(name string) api.PodSpec {
	return api.PodSpec{Name: name, Hostname: name, Containers: []api.ContainerSpec{{Name: "app", Image: "busybox", Command: []string{"sleep", "1"}}}}
}

// The key leaves out the name, a defaulted hostname and what acts only once processes run; it
// keeps everything a member creates.
func TestKey(t *testing.T) {
	key := func(s api.PodSpec) string {
		k, err := Key(s)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	base := key(spec("a"))
	other := spec("b")
	other.Containers[0].PostStart = hook.Exec("true")
	other.Labels = map[string]string{"request": "42"}
	if key(other) != base {
		t.Errorf("the name, a label or a hook changed the key")
	}
	explicit := spec("c")
	explicit.Hostname = "fixed"
	env := spec("d")
	env.Containers[0].Env = []api.EnvVar{{Name: "X", Value: "1"}}
	img := spec("e")
	img.Containers[0].Image = "busybox:2"
	for what, s := range map[string]api.PodSpec{"explicit hostname": explicit, "env": env, "image": img} {
		if key(s) == base {
			t.Errorf("%s did not change the key", what)
		}
	}
}

// Prewarm refuses a spec that holds its name where a member fixes it, naming the field, and
// takes no word that merely contains the name for it.
func TestPoolable(t *testing.T) {
	ok := spec("fn")
	ok.Containers[0].Env = []api.EnvVar{{Name: "PATH", Value: "/usr/fnx/bin:/bin"}, {Name: "URL", Value: "http://fn2.local/fnx"}}
	if err := Poolable(ok); err != nil {
		t.Errorf("Poolable: %v", err)
	}
	for field, s := range map[string]func(*api.PodSpec){
		"containers[0].env[POD_NAME]":     func(s *api.PodSpec) { s.Containers[0].Env = []api.EnvVar{{Name: "POD_NAME", Value: "fn"}} },
		"containers[0].command/args[2]":   func(s *api.PodSpec) { s.Containers[0].Args = []string{"--id=fn.svc"} },
		"containers[0].ports[0].hostPort": func(s *api.PodSpec) { s.Containers[0].Ports = []api.ContainerPort{{ContainerPort: 80, HostPort: 8080}} },
		"volumes[info].files[name]": func(s *api.PodSpec) {
			s.Volumes = []api.Volume{{Name: "info", Files: &api.FilesVolume{Files: []api.File{{Path: "name", Data: []byte("fn\n")}}}}}
		},
	} {
		sp := spec("fn")
		s(&sp)
		var npe *NotPoolableError
		if err := Poolable(sp); !errors.As(err, &npe) || npe.Field != field {
			t.Errorf("Poolable = %v, want the field %s", err, field)
		}
	}
}
