package tasks

import (
	"fmt"
	"os"
	"syscall"
)

// OpenFIFOReaders opens a read end of each FIFO path ("" skipped) without waiting for a writer.
func OpenFIFOReaders(paths ...string) ([]*os.File, error) {
	var out []*os.File
	for _, p := range paths {
		if p == "" {
			continue
		}
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			CloseAll(out)
			return nil, fmt.Errorf("attach: %w", err)
		}
		out = append(out, f)
	}
	return out, nil
}

// CloseAll closes fs, ignoring errors (read ends of FIFOs).
func CloseAll(fs []*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}
