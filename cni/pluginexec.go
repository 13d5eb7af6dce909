package cni

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/containernetworking/cni/pkg/invoke"
	"github.com/containernetworking/cni/pkg/types"
)

// pluginExec runs CNI plugins as libcni's RawExec does, with one difference: a plugin started
// under the state dir's lock inherits the lock's file description, so the flock stays held
// until the plugin (and what it runs, such as iptables) exits, even if this process dies
// first. Otherwise a manager killed during an ADD drops the lock while its plugins go on, and
// the DEL of the process that cleans up after it races them: the plugin adds its iptables
// rule after the DEL removed the chain's rules, and the chain is left (CHAIN_DEL: busy).
type pluginExec struct {
	*invoke.DefaultExec
	lock   *stateLock
	stderr io.Writer
}

// textFileBusyRetries bounds the retries of a plugin being written ("text file busy"), as
// RawExec does.
const textFileBusyRetries = 5

// ExecPlugin implements invoke.Exec.
func (e *pluginExec) ExecPlugin(ctx context.Context, pluginPath string, stdinData []byte, environ []string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	var err error
	for try := 0; try <= textFileBusyRetries; try++ {
		stdout.Reset()
		stderr.Reset()
		c := exec.CommandContext(ctx, pluginPath)
		c.Env = environ
		c.Stdin = bytes.NewReader(stdinData)
		c.Stdout, c.Stderr = &stdout, &stderr
		if f := e.lock.heldFile(); f != nil {
			c.ExtraFiles = []*os.File{f} // fd 3 in the plugin; the flock lives while it does
		}
		if err = c.Run(); err == nil || !strings.Contains(err.Error(), "text file busy") {
			break
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err != nil {
		return nil, pluginErr(err, stdout.Bytes(), stderr.Bytes())
	}
	if e.stderr != nil && stderr.Len() > 0 {
		_, _ = stderr.WriteTo(e.stderr)
	}
	return stdout.Bytes(), nil
}

// pluginErr is the error of a failed plugin: the CNI error it printed, else its stderr.
func pluginErr(err error, stdout, stderr []byte) error {
	var e types.Error
	switch {
	case len(stdout) == 0 && len(stderr) == 0:
		e.Msg = fmt.Sprintf("netplugin failed with no error message: %v", err)
	case len(stdout) == 0:
		e.Msg = fmt.Sprintf("netplugin failed: %q: %v", string(stderr), err)
	default:
		if perr := json.Unmarshal(stdout, &e); perr != nil {
			e.Msg = fmt.Sprintf("netplugin failed but error parsing its diagnostic message %q: %v", string(stdout), perr)
		}
	}
	return &e
}
