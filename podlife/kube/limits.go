package kube

import (
	"fmt"
	"io"
)

// Limits on what a manifest may make Load and Convert spend. A manifest is input from
// whoever wrote it: these bound the memory and time of a load by the size of its input, and
// refuse what could not run anyway. docs/kube-fields.md explains each.
const (
	// MaxManifestSize is the largest manifest Load and LoadFiles accept, in bytes: 3 MiB, the
	// API server's limit on a request body. It also bounds a manifest's YAML documents with
	// their aliases expanded, so that anchors cannot make a manifest bigger than one written
	// out in full could be.
	MaxManifestSize = 3 << 20

	// MaxDocuments is the most documents a manifest may hold ("---" separated YAML, or a
	// stream of JSON objects), empty ones included: far more than a set of pods and their
	// ConfigMaps and Secrets, and few enough that a manifest of tiny documents is not
	// hundreds of thousands of decodes and errors.
	MaxDocuments = 1000

	// MaxExpandedString is the longest string a container may be given, in bytes, once its
	// $(VAR) references are expanded: an env value, a command or args element, an exec
	// probe's command element, a subPathExpr. 128 KiB is Linux's MAX_ARG_STRLEN: execve
	// refuses a longer argument or environment string (E2BIG), so such a container could
	// not start. It applies to env values read from ConfigMaps and Secrets as well.
	MaxExpandedString = 128 << 10

	// MaxContainerEnvironment bounds a container's environment, command and args together,
	// in bytes (each variable counted as NAME=value and a NUL, each argument with its NUL):
	// 2 MiB, Linux's ARG_MAX under the default 8 MiB stack limit (a quarter of it), beyond
	// which execve refuses the container's process.
	MaxContainerEnvironment = 2 << 20

	// MaxExpansionTotal bounds the bytes that $(VAR) expansion produces in one Load,
	// LoadFiles or Convert, over all its pods and containers: 16 MiB, far above what real
	// manifests expand to, so that many containers each under MaxContainerEnvironment
	// cannot add up to an unbounded amount of memory.
	MaxExpansionTotal = 16 << 20
)

// readManifest reads a manifest of at most MaxManifestSize bytes, reading at most one byte
// more. tooLong tells that it is longer, and data is then incomplete.
func readManifest(r io.Reader) (data []byte, tooLong bool, err error) {
	data, err = io.ReadAll(io.LimitReader(r, MaxManifestSize+1))
	if err != nil {
		return nil, false, err
	}
	return data, len(data) > MaxManifestSize, nil
}

// manifestTooLong is the issue of a manifest over MaxManifestSize.
func manifestTooLong(at Document) Issue {
	return Issue{Document: at, Path: DocumentPath, Severity: Error,
		Message: fmt.Sprintf("Too long: a manifest may not be more than %d bytes (the API server's limit on a request body)", MaxManifestSize)}
}
