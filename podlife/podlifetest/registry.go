package podlifetest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/podlife/podlife/internal/procutil"
)

const (
	// registryStartTimeout bounds StartRegistry when ctx has no deadline.
	registryStartTimeout = 30 * time.Second
	// registryStopGrace is how long Close waits after SIGTERM.
	registryStopGrace = 5 * time.Second
	// registryAttempts is how often StartRegistry tries a new port when the
	// one it picked was taken in the meantime.
	registryAttempts = 3
)

// Credentials are a user name and password for basic auth.
type Credentials struct {
	Username string
	Password string
}

// Registry is a local OCI registry: Debian's docker-registry (distribution
// 2.8) serving plain HTTP on 127.0.0.1. Close it when done.
type Registry struct {
	dir   string
	addr  string
	creds *Credentials
	proc  *procutil.Process

	closeOnce sync.Once
	closeErr  error
}

// StartRegistry starts docker-registry on a free port of 127.0.0.1 with
// its storage, configuration and log in dir (a new temporary directory if
// dir is empty), requiring creds with basic auth unless creds is nil. It
// returns once GET /v2/ answers (401 with creds, 200 without); if ctx has
// no deadline, that must happen within 30s. Close removes dir.
func StartRegistry(ctx context.Context, dir string, creds *Credentials) (*Registry, error) {
	bin, err := registryBinary()
	if err != nil {
		return nil, err
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "plt-reg-"); err != nil {
			return nil, fmt.Errorf("podlifetest: %w", err)
		}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, registryStartTimeout)
		defer cancel()
	}
	r := &Registry{dir: dir, creds: creds}
	if err := r.start(ctx, bin); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("podlifetest: start registry: %w", err)
	}
	return r, nil
}

// registryBinary finds Debian's docker-registry, or upstream's registry.
func registryBinary() (string, error) {
	var errs []error
	for _, name := range []string{"docker-registry", "registry"} {
		bin, err := exec.LookPath(name)
		if err == nil {
			return bin, nil
		}
		errs = append(errs, err)
	}
	return "", fmt.Errorf("podlifetest: no registry binary: %w", errors.Join(errs...))
}

// start prepares dir and starts the registry, retrying on a new port if
// the one it picked is taken by the time the registry binds it.
func (r *Registry) start(ctx context.Context, bin string) error {
	dataDir := filepath.Join(r.dir, "data")
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return err
	}
	htpasswd := ""
	if r.creds != nil {
		htpasswd = filepath.Join(r.dir, "htpasswd")
		if err := writeHtpasswd(htpasswd, *r.creds); err != nil {
			return err
		}
	}
	var err error
	for range registryAttempts {
		if r.addr, err = freeLoopbackAddr(); err != nil {
			return err
		}
		config := filepath.Join(r.dir, "config.yml")
		if err := os.WriteFile(config, []byte(registryConfig(r.addr, dataDir, htpasswd)), 0o644); err != nil {
			return err
		}
		if err = r.run(ctx, bin, config); !errors.Is(err, errPortTaken) {
			return err
		}
	}
	return err
}

// errPortTaken reports that the registry could not bind its port.
var errPortTaken = errors.New("port taken")

// run starts the registry with config and waits until it answers.
func (r *Registry) run(ctx context.Context, bin, config string) error {
	logPath := filepath.Join(r.dir, "registry.log")
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, "serve", config)
	cmd.Dir = r.dir
	cmd.Stdout, cmd.Stderr = log, log
	r.proc, err = startProcess(cmd)
	_ = log.Close()
	if err != nil {
		return err
	}
	err = r.waitReady(ctx)
	if err == nil {
		return nil
	}
	r.proc.Stop(registryStopGrace)
	out, _ := os.ReadFile(logPath)
	if strings.Contains(string(out), "address already in use") {
		return errPortTaken
	}
	return fmt.Errorf("%w; log:\n%s", err, tail(string(out), 20))
}

// waitReady polls GET /v2/ until the registry answers as expected.
func (r *Registry) waitReady(ctx context.Context) error {
	want := http.StatusOK
	if r.creds != nil {
		want = http.StatusUnauthorized
	}
	hc := loopbackHTTPClient()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if r.answers(ctx, hc, want) {
			return nil
		}
		select {
		case <-r.proc.Done():
			return fmt.Errorf("registry exited: %v", r.proc.Err())
		case <-ctx.Done():
			return fmt.Errorf("registry on %s did not answer: %w", r.addr, ctx.Err())
		case <-tick.C:
		}
	}
}

// answers reports whether GET /v2/ returns want from a distribution
// registry (not something else that took the port).
func (r *Registry) answers(ctx context.Context, hc *http.Client, want int) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+r.addr+"/v2/", nil)
	if err != nil {
		return false
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == want && resp.Header.Get("Docker-Distribution-Api-Version") == "registry/2.0"
}

// Addr returns the registry's host:port, such as "127.0.0.1:41234".
func (r *Registry) Addr() string { return r.addr }

// Ref returns the reference of name (such as "podlife/busybox:1") in this
// registry.
func (r *Registry) Ref(name string) string { return r.addr + "/" + name }

// Close stops the registry (SIGTERM to its PID, SIGKILL after 5s) and
// removes its directory. It is idempotent.
func (r *Registry) Close() error {
	r.closeOnce.Do(func() {
		r.proc.Stop(registryStopGrace)
		if err := os.RemoveAll(r.dir); err != nil {
			r.closeErr = fmt.Errorf("podlifetest: close registry: %w", err)
		}
	})
	return r.closeErr
}

// freeLoopbackAddr returns a 127.0.0.1 address with a port that was free a
// moment ago.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return "", err
	}
	return addr, nil
}

// loopbackHTTPClient returns an HTTP client that ignores proxy settings,
// for talking to the registry on 127.0.0.1.
func loopbackHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	return &http.Client{Transport: t, Timeout: time.Minute}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
