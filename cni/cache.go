package cni

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// removeCachedResults deletes libcni's cached results for network from the
// cache of stateDir, leaving other networks' entries alone.
func removeCachedResults(stateDir, network string) error {
	dir := filepath.Join(cacheDir(stateDir), "results")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list cache: %w", err)
	}
	var errs []error
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if cachedNetwork(path) != network {
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// cachedNetwork returns the network name recorded in a libcni cache file,
// or "" if the file cannot be read.
func cachedNetwork(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var entry struct {
		NetworkName string `json:"networkName"`
	}
	if json.Unmarshal(data, &entry) != nil {
		return ""
	}
	return entry.NetworkName
}
