package podlife

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
	"sync"

	"github.com/podlife/podlife/podlife/internal/poddir"
)

// The spec fingerprints a pod's record keeps (see specFields) are HMAC-SHA256 under a key of
// the state dir, StateDir/spec.key: 32 random bytes, mode 0600, made by the first Runtime
// that writes a record there and shared by every process of the state dir (an adopter must
// compute the same fingerprints). A bare hash of a field would let whoever reads pod.json
// test guesses of its values offline: an env value or a password is often short or
// predictable. A salt kept in the record beside the hash would not stop that (the guesser
// has it too); a key kept apart does: pod.json alone (a copied pod dir, a backup without the
// key, a support bundle) confirms no guess.

const (
	specKeyFile = "spec.key"
	specKeyLen  = 32
)

// specKeyCache is the state dir's key, read once.
type specKeyCache struct {
	mu  sync.Mutex
	key []byte
}

// specKey returns the state dir's fingerprint key, making it if the state dir has none.
func (r *Runtime) specKey() ([]byte, error) {
	c := &r.speckey
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key == nil {
		key, err := loadSpecKey(r.cfg.StateDir)
		if err != nil {
			return nil, fmt.Errorf("spec fingerprint key: %w", err)
		}
		c.key = key
	}
	return c.key, nil
}

// loadSpecKey reads dir's key, or makes it: of processes making it at once, one's is linked
// into place and all read that one.
func loadSpecKey(dir string) ([]byte, error) {
	path := filepath.Join(dir, specKeyFile)
	for range 2 {
		b, err := os.ReadFile(path)
		if err == nil {
			if len(b) != specKeyLen {
				return nil, fmt.Errorf("%s has %d bytes, not %d: move it away to have a new one made (running pods' records are then adopted unchecked)", path, len(b), specKeyLen)
			}
			return b, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if err := makeSpecKey(path); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%s: made, then not found", path)
}

// makeSpecKey writes a new key to a temporary file (0600, synced) and links it to path, which
// fails with fs.ErrExist if another process made it first.
func makeSpecKey(path string) error {
	key := make([]byte, specKeyLen)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+specKeyFile+"-*")
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

// specKeyID names key in a record (see podRecord.SpecKey) without revealing it, so that a
// record whose fingerprints were made with another key is told from a changed spec.
func specKeyID(key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("podlife spec key id"))
	return hex.EncodeToString(m.Sum(nil)[:8])
}
