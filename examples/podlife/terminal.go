package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/containerd/console"

	"github.com/podlife/podlife/podlife"
)

// terminal is the CLI's own terminal while a command with a TTY runs in a container.
type terminal struct {
	con console.Console
}

// openTerminal returns in as a terminal if it is one (a *os.File on a tty), else nil.
func openTerminal(in io.Reader) *terminal {
	f, ok := in.(*os.File)
	if !ok {
		return nil
	}
	con, err := console.ConsoleFromFile(f)
	if err != nil {
		return nil
	}
	return &terminal{con: con}
}

// raw puts the terminal in raw mode (keys go to the container's terminal as typed, Ctrl-C
// included) and returns the function that restores it.
func (t *terminal) raw() (restore func(), err error) {
	if err := t.con.SetRaw(); err != nil {
		return nil, err
	}
	return func() { _ = t.con.Reset() }, nil
}

// sizes sends the terminal's size at once and again on every SIGWINCH, until ctx ends.
func (t *terminal) sizes(ctx context.Context) <-chan podlife.TerminalSize {
	out := make(chan podlife.TerminalSize, 1)
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	send := func() {
		ws, err := t.con.Size()
		if err != nil {
			return
		}
		select {
		case out <- podlife.TerminalSize{Width: ws.Width, Height: ws.Height}:
		case <-ctx.Done():
		}
	}
	send()
	go func() {
		defer signal.Stop(winch)
		for {
			select {
			case <-ctx.Done():
				return
			case <-winch:
				send()
			}
		}
	}()
	return out
}

// splitShortFlags spells kubectl's combined one-letter flags (-it, -ti) as the flag package
// wants them (-i -t): each argument before "--" made of letters all in letters is split.
func splitShortFlags(args []string, letters string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.Trim(a[1:], letters) == "" {
			for _, l := range a[1:] {
				out = append(out, "-"+string(l))
			}
			continue
		}
		out = append(out, a)
	}
	return out
}
