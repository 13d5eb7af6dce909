package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/namespaces"

	"github.com/podlife/podlife/podlife/internal/layout"
)

// ErrPodsLeft is wrapped by the error of [StopPrivate] when pods or containers are left.
var ErrPodsLeft = errors.New("pods left")

// PrivateDir returns the directory of the private containerd that podlife uses for stateDir
// (see podlife.EmbeddedConfig): the dir to give [Lookup] or [Shutdown].
func PrivateDir(stateDir string) string { return layout.PrivateDir(stateDir) }

// StopPrivate stops the private containerd of podlife's stateDir (see podlife.EmbeddedConfig;
// "" means podlife.DefaultStateDir), whichever process started it, once nothing uses it: no
// pod in the state dir (StateDir/pods) and no container in any namespace of that containerd.
// Otherwise it refuses with an error wrapping [ErrPodsLeft] that names them; remove them first
// (`podlife rm`). If no private containerd runs for stateDir, the error wraps [ErrNotRunning].
//
// It sends SIGTERM, then SIGKILL if containerd has not exited when ctx is done (after 10 s if
// ctx has no deadline), and returns once it is gone. It holds the start lock meanwhile, so that
// no process starts another one halfway; a process that needs it later (podlife.New, or a
// Runtime that reconnects) starts it again. Do not run it while another process may be
// starting pods on the state dir: the check and the stop are not atomic with respect to a pod
// being created.
func StopPrivate(ctx context.Context, stateDir string) error {
	if stateDir == "" {
		stateDir = layout.DefaultStateDir
	}
	if !filepath.IsAbs(stateDir) {
		return fmt.Errorf("podlife: stop the private containerd: state dir %q must be an absolute path", stateDir)
	}
	refuse := func(left []string) error {
		return fmt.Errorf("podlife: cannot stop the private containerd of %s: %w: %s; remove them first",
			stateDir, ErrPodsLeft, strings.Join(left, ", "))
	}
	left, err := podDirs(stateDir)
	if err != nil {
		return err
	}
	if len(left) > 0 {
		return refuse(left)
	}
	err = Shutdown(ctx, PrivateDir(stateDir), func(ctx context.Context, address string) error {
		// Again under the start lock, and containerd's own view: a pod being created or removed
		// has containers before or after its directory.
		pods, err := podDirs(stateDir)
		if err != nil {
			return err
		}
		ctrs, err := containersOf(ctx, address)
		if err != nil {
			return err
		}
		if left := union(pods, ctrs); len(left) > 0 {
			return refuse(left)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("podlife: stop the private containerd: %w", err)
	}
	return nil
}

// podDirs returns the names of the pods with a directory in the state dir.
func podDirs(stateDir string) ([]string, error) {
	entries, err := os.ReadDir(layout.PodsDir(stateDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("podlife: list pods: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// containersOf lists the containers of every namespace of the containerd at address: a podlife
// pod's by its pod name, others as "container NAMESPACE/ID".
func containersOf(ctx context.Context, address string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := client.New(address)
	if err != nil {
		return nil, fmt.Errorf("podlife: connect to %s: %w", address, err)
	}
	defer c.Close()
	nss, err := c.NamespaceService().List(ctx)
	if err != nil {
		return nil, fmt.Errorf("podlife: list namespaces: %w", err)
	}
	var out []string
	for _, ns := range nss {
		ctrs, err := c.Containers(namespaces.WithNamespace(ctx, ns))
		if err != nil {
			return nil, fmt.Errorf("podlife: list containers of namespace %s: %w", ns, err)
		}
		for _, ctr := range ctrs {
			labels, err := ctr.Labels(namespaces.WithNamespace(ctx, ns))
			if err == nil && labels[layout.LabelPod] != "" {
				out = append(out, labels[layout.LabelPod])
				continue
			}
			out = append(out, "container "+ns+"/"+ctr.ID())
		}
	}
	return out, nil
}

// union returns the strings of a and b, sorted, without duplicates.
func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range append(append([]string{}, a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
