package volumes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/podlife/podlife/podlife"
)

// The kubelet writes configMap, secret, downwardAPI and projected volumes with its atomic
// writer, so that a container never sees a half-written update: the payload goes to a fresh
// timestamped directory ("..2026_11_26_16_20_00.123456789"), a "..data" symlink to it is swapped
// in with a rename, and each of the volume's top-level entries is a symlink into "..data"
// ("token" -> "..data/token"). Readers that open a path see either the old payload or the new
// one, never a mix. writeAtomic does the same, for the projected volumes the node
// materializes itself (projected.go).

const (
	dataDirName    = "..data"
	dataDirTmpName = "..data_tmp"
	// tsDirLayout is the prefix layout of the timestamped payload directories; os.MkdirTemp
	// appends a random suffix.
	tsDirLayout = "..2006_01_02_15_04_05."
)

// payloadFile is a file of a volume's payload.
type payloadFile struct {
	podlife.File
	uid int // its owner; -1 for the node's (root)
}

// writeAtomic makes dir (created if missing) hold exactly files, with the kubelet's atomic
// writer layout; gid, if not negative, owns every file and directory of the payload, readable
// by the group (fsGroup). The previous payload is removed once the new one is in place.
func writeAtomic(dir string, files []payloadFile, gid int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tops := map[string]bool{}
	for _, f := range files {
		p := filepath.Clean(f.Path)
		if p == "." || filepath.IsAbs(p) || strings.HasPrefix(p, "..") {
			return fmt.Errorf("file path %q: must be relative, and not start with \"..\"", f.Path)
		}
		tops[strings.SplitN(p, "/", 2)[0]] = true
	}
	ts, err := os.MkdirTemp(dir, time.Now().UTC().Format(tsDirLayout))
	if err != nil {
		return err
	}
	if err := writePayload(ts, files, gid); err != nil {
		_ = os.RemoveAll(ts)
		return err
	}
	tmp := filepath.Join(dir, dataDirTmpName)
	_ = os.Remove(tmp)
	if err := os.Symlink(filepath.Base(ts), tmp); err != nil {
		_ = os.RemoveAll(ts)
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, dataDirName)); err != nil {
		_ = os.Remove(tmp)
		_ = os.RemoveAll(ts)
		return err
	}
	// The user-visible names: new ones linked, those the payload no longer has removed.
	for top := range tops {
		link := filepath.Join(dir, top)
		if _, err := os.Lstat(link); errors.Is(err, fs.ErrNotExist) {
			if err := os.Symlink(filepath.Join(dataDirName, top), link); err != nil {
				return err
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, ".."):
			// Every ".." entry but ..data and the new payload: the old payload, and what an
			// interrupted write left.
			if name != dataDirName && name != filepath.Base(ts) {
				errs = append(errs, os.RemoveAll(filepath.Join(dir, name)))
			}
		case !tops[name]:
			errs = append(errs, os.Remove(filepath.Join(dir, name)))
		}
	}
	return errors.Join(errs...)
}

// writePayload writes files under dir (the timestamped directory).
func writePayload(dir string, files []payloadFile, gid int) error {
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	if err := chownGroup(dir, gid); err != nil {
		return err
	}
	for _, f := range files {
		path := filepath.Join(dir, filepath.Clean(f.Path))
		for d := filepath.Dir(path); d != dir; d = filepath.Dir(d) {
			if _, err := os.Stat(d); err == nil {
				break
			}
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			if err := chownGroup(d, gid); err != nil {
				return err
			}
		}
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		if err := os.WriteFile(path, f.Data, mode); err != nil {
			return err
		}
		if gid >= 0 {
			mode |= 0o440 // the kubelet's fsGroup ownership of a read-only volume
		}
		if err := os.Chmod(path, mode); err != nil {
			return err
		}
		if err := os.Lchown(path, f.uid, gid); err != nil {
			return err
		}
	}
	return nil
}

// chownGroup gives path to group gid; a negative gid leaves it as it is.
func chownGroup(path string, gid int) error {
	if gid < 0 {
		return nil
	}
	return os.Lchown(path, -1, gid)
}
