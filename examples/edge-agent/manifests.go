package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/podlife/podlife/podlife/kube"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
)

// fileResult is what one manifest file gave: its pods, or why it gave none.
type fileResult struct {
	File string `json:"file"`
	Hash string `json:"hash,omitempty"`
	// Pods are the names of the pods the file declares (suffixed).
	Pods []string `json:"pods,omitempty"`
	// Error says why the file was not applied; its pods, if it had any before, are kept.
	Error string `json:"error,omitempty"`
	// Warnings are the fields podlife does not honour (see podlife/kube).
	Warnings []string `json:"warnings,omitempty"`
}

// source reads a directory of Pod manifests, as the kubelet's --pod-manifest-path: every
// regular file whose name does not start with "." is a manifest (YAML or JSON, one or more
// documents); subdirectories are not read.
type source struct {
	dir  string
	opts kube.Options
	// suffix is appended to every pod's name ("-" + node name), or empty.
	suffix string

	// cache holds what each file gave, by name, to load it again only when its bytes change.
	cache map[string]cachedFile
}

// cachedFile is what a file gave, and the checksum of the bytes it gave it from.
type cachedFile struct {
	sum    [sha256.Size]byte
	result fileResult
	pods   []desiredPod
}

// scan reads every manifest and returns the desired pods by name and each file's result. A
// file that fails to load gives no pods and is in broken. A pod name declared by two files is
// given to the file whose pod runs (owner returns the file a pod was started from, "" if none),
// else to the first file in name order; the other file is broken.
func (s *source) scan(ctx context.Context, owner func(pod string) string) (desired map[string]desiredPod, files map[string]fileResult, broken map[string]bool, err error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read the manifest directory: %w", err)
	}
	if s.cache == nil {
		s.cache = map[string]cachedFile{}
	}
	loaded := map[string]cachedFile{}
	claims := map[string][]string{} // pod -> files declaring it, in name order
	for _, e := range entries {     // sorted by name
		name := e.Name()
		if strings.HasPrefix(name, ".") || !e.Type().IsRegular() {
			continue
		}
		c := s.loadCached(ctx, name)
		loaded[name] = c
		for _, p := range c.pods {
			claims[p.Name] = append(claims[p.Name], name)
		}
	}
	s.cache = loaded // forget the files that are gone

	desired, files, broken = map[string]desiredPod{}, map[string]fileResult{}, map[string]bool{}
	for name, c := range loaded {
		r := c.result
		for _, p := range c.pods {
			if winner := claimant(claims[p.Name], owner(p.Name)); winner != name {
				r.Error = fmt.Sprintf("pod %s is declared by %s already", p.Name, winner)
				break
			}
		}
		if r.Error != "" {
			r.Pods = nil
			broken[name] = true
		} else {
			for _, p := range c.pods {
				desired[p.Name] = p
			}
		}
		files[name] = r
	}
	return desired, files, broken, nil
}

// claimant is the file that keeps a pod several files declare: the one it runs from, else
// the first.
func claimant(files []string, running string) string {
	if slices.Contains(files, running) {
		return running
	}
	return files[0]
}

// loadCached loads a file, or returns what it gave last if its bytes did not change.
func (s *source) loadCached(ctx context.Context, name string) cachedFile {
	b, err := readManifest(filepath.Join(s.dir, name), kube.MaxManifestSize)
	if err != nil {
		return cachedFile{result: fileResult{File: name, Error: err.Error()}}
	}
	sum := sha256.Sum256(b)
	if c, ok := s.cache[name]; ok && c.sum == sum {
		return c
	}
	r, pods := s.load(ctx, name, b)
	return cachedFile{sum: sum, result: r, pods: pods}
}

// load loads one manifest file's bytes.
func (s *source) load(ctx context.Context, name string, b []byte) (fileResult, []desiredPod) {
	r := fileResult{File: name, Hash: manifestHash(b)}
	res, err := kube.Load(ctx, s.opts, bytes.NewReader(b))
	if le, ok := errors.AsType[*kube.LoadError](err); ok {
		// Loaded from bytes (those hashed): name the file in the issues.
		for i := range le.Issues {
			le.Issues[i].Document.File = name
		}
	}
	if err != nil {
		r.Error = err.Error()
		return r, nil
	}
	for _, w := range res.Warnings {
		w.Document.File = name
		r.Warnings = append(r.Warnings, w.String())
	}
	if len(res.Pods) == 0 {
		r.Error = "no pod in the manifest"
		return r, nil
	}
	var pods []desiredPod
	for _, p := range res.Pods {
		spec := p.Spec
		spec.Name += s.suffix
		if err := spec.Validate(); err != nil {
			r.Error = fmt.Sprintf("pod %s: %v", spec.Name, err)
			return r, nil
		}
		r.Pods = append(r.Pods, spec.Name)
		pods = append(pods, desiredPod{Name: spec.Name, File: name, Hash: r.Hash, Spec: spec})
	}
	slices.Sort(r.Pods)
	return r, pods
}

// manifestHash identifies a manifest by its content, not its text, as the kubelet hashes the
// decoded pod: its documents decoded and encoded again as JSON (object keys sorted), so that
// comments, formatting and key order do not count. A manifest that does not decode is
// hashed as it is (it fails to load anyway).
func manifestHash(b []byte) string {
	var docs []any
	dec := k8syaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	for {
		var doc any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			docs = nil
			break
		}
		if doc != nil {
			docs = append(docs, doc)
		}
	}
	canon := b
	if docs != nil {
		if j, err := json.Marshal(docs); err == nil {
			canon = j
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:16])
}
