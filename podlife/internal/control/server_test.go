package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
)

// newTestServer serves a control socket in a new state dir whose requests name no pod it has:
// each is answered as package podlife answers a pod it does not manage.
func newTestServer(t *testing.T) *Server {
	t.Helper()
	dir, err := os.MkdirTemp("", "plf-ctl-") // short: a socket's path is at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	c := New(Config{
		Socket: filepath.Join(dir, "control", SocketName(os.Getpid(), "test")),
		Log:    slog.New(slog.DiscardHandler),
		Do: func(req Request) error {
			return fmt.Errorf("pod %q: %w", req.Pod, api.ErrNotFound)
		},
		Checks:    testChecks,
		SecureDir: func(string, *slog.Logger) error { return nil },
		Alive:     alive,
	})
	c.Listen()
	t.Cleanup(func() {
		c.Close()
		os.RemoveAll(dir)
	})
	return c
}

// alive reports whether process pid lives (signal 0 reaches it).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// dialControl sends raw to the control socket and returns the reply.
func dialControl(t *testing.T, sock string, raw []byte) Reply {
	t.Helper()
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	go func() { _, _ = conn.Write(raw) }() // the server may stop reading at its cap
	var reply Reply
	if err := json.NewDecoder(conn).Decode(&reply); err != nil {
		t.Fatalf("no reply: %v", err)
	}
	return reply
}

// A request is one line of at most maxRequest bytes: a larger one is refused with a
// clear error, not read without end; a bad one is refused with what is wrong.
func TestControlRequestCapped(t *testing.T) {
	c := newTestServer(t)
	sock := c.Path()
	if sock == "" {
		t.Fatal("no control socket")
	}
	huge := append(bytes.Repeat([]byte(" "), maxRequest), []byte(`{"op":"stop","pod":"x"}`+"\n")...)
	if got := dialControl(t, sock, huge); !strings.Contains(got.Error, "request larger than 65536 bytes") {
		t.Errorf("oversized request: reply %+v, want the size error", got)
	}
	for raw, want := range map[string]string{
		`{"op":"stop","pod":"../x"}` + "\n":           `invalid pod name "../x"`,
		`{"op":"exec","pod":"x"}` + "\n":              `unknown op "exec"`,
		`{"op":"stop","pod":"x","grace":-1}` + "\n":   "negative grace period",
		`{"op":"stop","pod":"x","extra":1}` + "\n":    "unknown field",
		`{"op":"stop","pod":"x"}{"op":"stop"}` + "\n": "more than one value",
		`{"op":"stop","pod":"nothing-here"}` + "\n":   "not found",
		`{"op":"remove","pod":"x","grace":5}` + "\n":  "not found",
		strings.Repeat(" ", maxRequest-2) + "{\n":     "bad request",
	} {
		got := dialControl(t, sock, []byte(raw))
		if !strings.Contains(got.Error, want) {
			t.Errorf("request %.60q: reply %+v, want %q", raw, got, want)
		}
	}
}

// TestControlPeerHelper is the other process of TestControlPeerRefused: it sends one request to
// the socket in its environment and prints the reply.
func TestControlPeerHelper(t *testing.T) {
	sock := os.Getenv("PODLIFE_CONTROL_PEER_SOCK")
	if sock == "" {
		t.Skip("helper process of TestControlPeerRefused")
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A refused peer may get its answer before it writes (the write then fails): the reply tells.
	_, _ = conn.Write([]byte(`{"op":"stop","pod":"nothing-here"}` + "\n"))
	b, _ := io.ReadAll(conn)
	os.Stdout.Write(append([]byte("REPLY "), b...))
}

// A process of another user is refused by SO_PEERCRED even when the socket's file mode lets it
// connect (the test opens it up); root, the socket's owner here, is served.
func TestControlPeerRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (a child process of another uid)")
	}
	c := newTestServer(t)
	sock := c.Path()
	if sock == "" {
		t.Fatal("no control socket")
	}
	// Open the way to the socket for everyone: only the peer check is left.
	for _, p := range []string{filepath.Dir(filepath.Dir(sock)), filepath.Dir(sock)} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(sock, 0o777); err != nil {
		t.Fatal(err)
	}
	// The test binary, where uid 65534 can run it (go test's build dir is 0700).
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	binDir, err := os.MkdirTemp("", "plf-peer-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(binDir)
	bin := filepath.Join(binDir, "control.test")
	if b, err := os.ReadFile(self); err != nil || os.WriteFile(bin, b, 0o755) != nil || os.Chmod(binDir, 0o755) != nil {
		t.Fatalf("copy the test binary: %v", err)
	}
	run := func(uid uint32) string {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "-test.short", "-test.run=^TestControlPeerHelper$", "-test.v")
		cmd.Env = append(os.Environ(), "PODLIFE_CONTROL_PEER_SOCK="+sock)
		cmd.Dir = binDir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("helper as uid %d: %v\n%s", uid, err, out)
		}
		_, reply, ok := strings.Cut(string(out), "REPLY ")
		if !ok {
			t.Fatalf("helper as uid %d: no reply\n%s", uid, out)
		}
		return reply
	}
	if got := run(65534); !strings.Contains(got, "uid 65534 may not use this socket") {
		t.Errorf("uid 65534: reply %q, want it refused", got)
	}
	if got := run(0); !strings.Contains(got, `pod \"nothing-here\"`) || strings.Contains(got, "may not use") {
		t.Errorf("root: reply %q, want the request served (pod not found)", got)
	}
}

// The stale-socket sweep removes the socket of a process that is gone, and leaves alone one
// that does not answer yet but whose process lives (bound, not yet listening), and any socket
// whose name says no PID.
func TestRemoveStaleSockets(t *testing.T) {
	dir, err := os.MkdirTemp("", "plf-ss-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid // reaped: gone (unless reused, which would only keep its socket)
	files := map[string]bool{
		strconv.Itoa(dead) + "-aaaa.sock":        false, // removed
		strconv.Itoa(os.Getpid()) + "-bbbb.sock": true,  // a live process between bind and listen
		"other.sock":                             true,
		strconv.Itoa(dead) + "-cccc.txt":         true,
	}
	for name := range files {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	removeStaleSockets(dir, alive)
	for name, kept := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if got := err == nil; got != kept {
			t.Errorf("%s kept = %v, want %v (%v)", name, got, kept, err)
		}
	}
}
