package podlife

import (
	"bytes"
	"context"
	"encoding/json"
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
)

// dialControl sends raw to the control socket and returns the reply.
func dialControl(t *testing.T, sock string, raw []byte) controlReply {
	t.Helper()
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	go func() { _, _ = conn.Write(raw) }() // the server may stop reading at its cap
	var reply controlReply
	if err := json.NewDecoder(conn).Decode(&reply); err != nil {
		t.Fatalf("no reply: %v", err)
	}
	return reply
}

// A request is one line of at most maxControlRequest bytes: a larger one is refused with a
// clear error, not read without end; a bad one is refused with what is wrong.
func TestControlRequestCapped(t *testing.T) {
	r, _, _ := newFakeRuntime(t)
	r.control.listen()
	sock := r.control.path()
	if sock == "" {
		t.Fatal("no control socket")
	}
	huge := append(bytes.Repeat([]byte(" "), maxControlRequest), []byte(`{"op":"stop","pod":"x"}`+"\n")...)
	if got := dialControl(t, sock, huge); !strings.Contains(got.Error, "request larger than 65536 bytes") {
		t.Errorf("oversized request: reply %+v, want the size error", got)
	}
	for raw, want := range map[string]string{
		`{"op":"stop","pod":"../x"}` + "\n":              `invalid pod name "../x"`,
		`{"op":"exec","pod":"x"}` + "\n":                 `unknown op "exec"`,
		`{"op":"stop","pod":"x","grace":-1}` + "\n":      "negative grace period",
		`{"op":"stop","pod":"x","extra":1}` + "\n":       "unknown field",
		`{"op":"stop","pod":"x"}{"op":"stop"}` + "\n":    "more than one value",
		`{"op":"stop","pod":"nothing-here"}` + "\n":      "not found",
		`{"op":"remove","pod":"x","grace":5}` + "\n":     "not found",
		strings.Repeat(" ", maxControlRequest-2) + "{\n": "bad request",
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
	r, _, _ := newFakeRuntime(t)
	r.control.listen()
	sock := r.control.path()
	if sock == "" {
		t.Fatal("no control socket")
	}
	// Open the way to the socket for everyone: only the peer check is left.
	for _, p := range []string{r.cfg.StateDir, filepath.Dir(sock)} {
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
	bin := filepath.Join(binDir, "podlife.test")
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

// A state dir of ours with a looser mode is set to 0700, with a warning; one of another user is
// refused.
func TestSecureDir(t *testing.T) {
	dir, err := os.MkdirTemp("", "plf-sd-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	if err := secureDir(dir, log); err != nil {
		t.Fatalf("secureDir on a 0755 dir of ours: %v", err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("mode after secureDir: %v %v, want 0700", fi.Mode(), err)
	}
	if !strings.Contains(logs.String(), "its mode was set to 0700") || !strings.Contains(logs.String(), "was=0755") {
		t.Errorf("log %q, want the warning with the old mode", logs.String())
	}
	logs.Reset()
	if err := secureDir(dir, log); err != nil || logs.Len() > 0 {
		t.Errorf("secureDir on a 0700 dir: %v, log %q; want nothing to do", err, logs.String())
	}
	// The control socket's directory, made 0755 before the first pod, ends 0700.
	r, _, _ := newFakeRuntime(t)
	ctl := filepath.Join(r.cfg.StateDir, "control")
	if err := os.Mkdir(ctl, 0o755); err != nil {
		t.Fatal(err)
	}
	r.control.listen()
	if fi, err := os.Stat(ctl); err != nil || fi.Mode().Perm() != 0o700 || r.control.path() == "" {
		t.Errorf("control dir after listen: %v %v, socket %q; want 0700 and serving", fi.Mode(), err, r.control.path())
	}

	if os.Geteuid() != 0 {
		return
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := secureDir(dir, log); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Errorf("secureDir on another user's dir = %v, want it refused", err)
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
	removeStaleSockets(dir)
	for name, kept := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if got := err == nil; got != kept {
			t.Errorf("%s kept = %v, want %v (%v)", name, got, kept, err)
		}
	}
}
