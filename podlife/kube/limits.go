package kube

import (
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
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

// overrun tells which bound an expansion ran into.
type overrun int

const (
	fits            overrun = iota
	stringTooLong           // MaxExpandedString
	containerTooBig         // MaxContainerEnvironment
	loadTooBig              // MaxExpansionTotal
)

// noRoom is the room of a string that MaxContainerEnvironment does not bound.
const noRoom = -1

// expandAt expands s (see expand) for the field at p, within MaxExpandedString, room (what
// is left of the container's MaxContainerEnvironment, or noRoom) and the load's budget. The
// expansion stops as soon as it would exceed one of them, which is reported at p.
func (c *converter) expandAt(p *field.Path, s string, lookup func(string) (string, bool), room int) (string, overrun) {
	limit, hit := MaxExpandedString, stringTooLong
	if room != noRoom && room < limit {
		limit, hit = max(room, 0), containerTooBig
	}
	expands := strings.Contains(s, "$")
	if expands && c.shared.expansionLeft < limit {
		limit, hit = c.shared.expansionLeft, loadTooBig
	}
	out, ok := expand(s, lookup, limit)
	if !ok {
		c.is.Errorf(p, "Too long: %s", hit.message(true))
		return "", hit
	}
	if expands {
		c.shared.expansionLeft -= len(out)
	}
	return out, fits
}

// message says what o exceeds; expanded tells whether the string was expanded.
func (o overrun) message(expanded bool) string {
	once := ""
	if expanded {
		once = " once $(VAR) references are expanded"
	}
	switch o {
	case stringTooLong:
		return fmt.Sprintf("may not be more than %d bytes%s (Linux's limit on one argument or environment string)", MaxExpandedString, once)
	case containerTooBig:
		return fmt.Sprintf("the container's environment, command and args may not be more than %d bytes in all%s (Linux's limit on what a process starts with)", MaxContainerEnvironment, once)
	case loadTooBig:
		return fmt.Sprintf("$(VAR) expansion may not produce more than %d bytes in all in one load", MaxExpansionTotal)
	}
	return ""
}

// expandList expands the elements of list (command or args) at p; room is as for expandAt,
// and used tells how much of it the elements took. It stops at the first element refused
// (ok false).
func (c *converter) expandList(p *field.Path, list []string, lookup func(string) (string, bool), room int) (out []string, used int, ok bool) {
	if list == nil {
		return nil, 0, true
	}
	out = make([]string, len(list))
	for i, s := range list {
		r := noRoom
		if room != noRoom {
			r = max(room-used-1, 0)
		}
		v, hit := c.expandAt(p.Index(i), s, lookup, r)
		if hit != fits {
			return nil, used, false
		}
		out[i] = v
		used += len(v) + 1
	}
	return out, used, true
}
