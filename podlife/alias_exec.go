package podlife

import "github.com/podlife/podlife/podlife/internal/api"

// ExecIO connects a process run by Pod.Exec, or attached to by Pod.Attach, to the caller. Its
// fields are documented at [api.ExecIO].
type ExecIO = api.ExecIO

// TerminalSize is a terminal's size in characters.
type TerminalSize = api.TerminalSize
