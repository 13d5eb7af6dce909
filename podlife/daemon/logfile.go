package daemon

import (
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// rotateLiveLog keeps the log of a running daemon bounded: if cfg.LogFile is
// larger than maxLogSize, its content is copied to LogFile.1 and the file is
// truncated in place (the daemon keeps its descriptor and appends, so its
// next lines go to the start of the emptied file; lines written between the
// copy and the truncation are lost). It runs only if it gets the start lock
// at once, so that two processes do not rotate together and a start is
// never waited for.
func rotateLiveLog(p paths, cfg Config) {
	if st, err := os.Stat(cfg.LogFile); err != nil || st.Size() <= maxLogSize {
		return
	}
	lock, err := os.OpenFile(p.lock, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer lock.Close()
	if unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return
	}
	if err := copyTruncate(cfg.LogFile); err != nil {
		cfg.Logger.Warn("rotate the containerd log", "file", cfg.LogFile, "err", err)
	}
}

// copyTruncate copies path to path.1 (through a temporary file, renamed) and
// truncates path.
func copyTruncate(path string) error {
	src, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp, err := os.OpenFile(path+".1.tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, src)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(path+".1.tmp", path+".1")
	}
	if err != nil {
		_ = os.Remove(path + ".1.tmp")
		return err
	}
	return src.Truncate(0)
}

// rotateLog moves path to path.1 if it is larger than maxLogSize.
func rotateLog(path string) {
	if st, err := os.Stat(path); err == nil && st.Size() > maxLogSize {
		_ = os.Rename(path, path+".1")
	}
}

// tailFile returns the last lines of path from offset on, indented for
// quoting in an error message.
func tailFile(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return "\t(" + err.Error() + ")"
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return "\t(" + err.Error() + ")"
	}
	b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	return "\t" + strings.Join(lines, "\n\t")
}
