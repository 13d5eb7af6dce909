package podlife

import (
	"fmt"
	"sync"

	"github.com/podlife/podlife/podlife/internal/specfp"
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
		key, err := specfp.LoadKey(r.cfg.StateDir)
		if err != nil {
			return nil, fmt.Errorf("spec fingerprint key: %w", err)
		}
		c.key = key
	}
	return c.key, nil
}
