package api

import "io"

// ExecIO connects a process run by Pod.Exec, or attached to by Pod.Attach, to the caller. A nil
// Stdin gives the process no input; a nil Stdout or Stderr discards that output.
type ExecIO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// TTY gives the process a terminal (kubectl exec -t): its stdin, stdout and stderr are the
	// terminal, whose output goes to Stdout (Stderr is not used). The caller puts its own
	// terminal in raw mode if it has one.
	TTY bool
	// Resize, with TTY, carries the caller's terminal size: its first value (send it at once)
	// sets the initial size, later values follow the caller's window. It is read until the
	// process exits; it need not be closed.
	Resize <-chan TerminalSize
}

// TerminalSize is a terminal's size in characters.
type TerminalSize struct {
	Width, Height uint16
}
