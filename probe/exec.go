package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/podlife/podlife/hook"
)

// Exec returns a prober that runs argv in the container through
// [hook.Target.Exec]. Exit code 0 is Success, any other code Failure; the
// message is the command's combined output, at most [hook.MaxOutputBytes].
// If ctx's deadline passes first, the result is Failure with the message
// `command "<argv joined by spaces>" timed out`. A Target without an Execer,
// an Execer error, or a cancelled ctx is a prober error.
func Exec(argv ...string) Prober { return &execProber{argv: slices.Clone(argv)} }

type execProber struct{ argv []string }

func (p *execProber) String() string { return fmt.Sprintf("exec %v", p.argv) }

func (p *execProber) validate() []error {
	if len(p.argv) == 0 {
		return []error{&FieldError{Field: "exec.command", Detail: "must specify a command"}}
	}
	return nil
}

func (p *execProber) Probe(ctx context.Context, t hook.Target) (Result, string, error) {
	if err := firstError(p); err != nil {
		return Unknown, "", err
	}
	if t.Exec == nil {
		return Unknown, "", hook.ErrNoExecer
	}
	res, err := t.Exec.Exec(ctx, slices.Clone(p.argv))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Failure, fmt.Sprintf("command %q timed out", strings.Join(p.argv, " ")), nil
		}
		return Unknown, "", err
	}
	out := res.Output
	if len(out) > hook.MaxOutputBytes {
		out = bytes.Clone(out[:hook.MaxOutputBytes])
	}
	if res.ExitCode != 0 {
		return Failure, string(out), nil
	}
	return Success, string(out), nil
}
