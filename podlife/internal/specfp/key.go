package specfp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/podlife/podlife/podlife/internal/poddir"
)

// KeyFile is the key's file in the state dir; KeyLen its length in bytes.
const (
	KeyFile = "spec.key"
	KeyLen  = 32
)

// LoadKey reads dir's key, or makes it: of processes making it at once, one's is linked
// into place and all read that one.
func LoadKey(dir string) ([]byte, error) {
	path := filepath.Join(dir, KeyFile)
	for range 2 {
		b, err := os.ReadFile(path)
		if err == nil {
			if len(b) != KeyLen {
				return nil, fmt.Errorf("%s has %d bytes, not %d: move it away to have a new one made (running pods' records are then adopted unchecked)", path, len(b), KeyLen)
			}
			return b, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if err := makeKey(path); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%s: made, then not found", path)
}

// makeKey writes a new key to a temporary file (0600, synced) and links it to path, which
// fails with fs.ErrExist if another process made it first.
func makeKey(path string) error {
	key := make([]byte, KeyLen)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+KeyFile+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(key)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Link(f.Name(), path); err != nil {
		return err
	}
	return poddir.SyncDir(filepath.Dir(path))
}

// KeyID names key in a record (see podRecord.SpecKey) without revealing it, so that a
// record whose fingerprints were made with another key is told from a changed spec.
func KeyID(key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("podlife spec key id"))
	return hex.EncodeToString(m.Sum(nil)[:8])
}
