package hook

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Exec returns a handler that runs argv in the target container through
// [Target.Exec]. The command succeeds if it exits with code 0. The handler has
// no timeout of its own; ctx bounds it.
//
// On failure it returns an [*Error] whose Output holds the command's output
// (at most [MaxOutputBytes]) and whose cause is an [*ExitError] carrying the
// exit code, [ErrNoExecer], or the Execer's error.
func Exec(argv ...string) Handler {
	return &execHandler{argv: slices.Clone(argv)}
}

type execHandler struct{ argv []string }

func (h *execHandler) String() string { return fmt.Sprintf("exec %v", h.argv) }

func (h *execHandler) validate() error {
	if len(h.argv) == 0 {
		return errors.New("exec: command must not be empty")
	}
	return nil
}

func (h *execHandler) Run(ctx context.Context, t Target) error {
	if err := h.validate(); err != nil {
		return newError("exec", h, t, nil, err)
	}
	if t.Exec == nil {
		return newError("exec", h, t, nil, ErrNoExecer)
	}
	res, err := t.Exec.Exec(ctx, slices.Clone(h.argv))
	out := capOutput(res.Output)
	if err != nil {
		return newError("exec", h, t, out, err)
	}
	if res.ExitCode != 0 {
		return newError("exec", h, t, out, &ExitError{Code: res.ExitCode})
	}
	return nil
}
