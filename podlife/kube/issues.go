package kube

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/podlife/podlife/podlife"
	"github.com/podlife/podlife/podlife/kube/internal/report"
)

// Severity says whether an [Issue] stops the load.
type Severity int

const (
	// Warning: the field is dropped or not enforced, and running without it is safe (a
	// scheduling hint, a cluster-only setting, an unenforced limit). Options.Strict turns
	// warnings into errors.
	Warning Severity = iota + 1
	// Error: the manifest is rejected.
	Error
)

// String returns "warning" or "error".
func (s Severity) String() string {
	switch s {
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// Document locates a manifest document: which input, which document in it, and the object
// it holds.
type Document struct {
	// Manifest is the index of the reader (Load) or path (LoadFiles) the document came from.
	Manifest int
	// File is the path of the manifest for LoadFiles, empty for Load and Convert.
	File string
	// Index is the 0-based index of the document in its manifest ("---" separated YAML, or a
	// stream of JSON objects); -1 for an object given to Convert.
	Index int
	// Kind and Name are the object's kind and metadata.name, when they could be read.
	Kind, Name string
}

// String returns a short locator: "pod.yaml#1 Deployment/web", "manifest 0#1 Pod/web", or
// "Pod/web" for a document Convert was given.
func (d Document) String() string {
	var b strings.Builder
	switch {
	case d.Index < 0:
	case d.File != "":
		fmt.Fprintf(&b, "%s#%d", d.File, d.Index)
	default:
		fmt.Fprintf(&b, "manifest %d#%d", d.Manifest, d.Index)
	}
	if d.Kind != "" {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(d.Kind)
		if d.Name != "" {
			b.WriteString("/" + d.Name)
		}
	}
	return b.String()
}

// Issue is a field the loader cannot honour, or an invalid one.
type Issue struct {
	// Document is where the field is.
	Document Document
	// Path is the field's path from the document's root, as Kubernetes prints it:
	// "spec.containers[0].volumeMounts[1].mountPropagation", "metadata.labels[app]". Problems
	// with a document as a whole (YAML syntax) have the path [DocumentPath].
	Path string
	// Message says what is wrong or what is dropped, in Kubernetes' wording where it has one
	// ("Unsupported value: ...", "Not found: ...", "Forbidden: ...").
	Message string
	// Severity is Warning or Error.
	Severity Severity
}

// DocumentPath is the Path of an issue about a document as a whole, such as a YAML syntax
// error.
const DocumentPath = "<document>"

// String returns "locator: path: message" (see Document.String), with " (warning)" appended
// to warnings.
func (i Issue) String() string {
	s := i.Path + ": " + i.Message
	if d := i.Document.String(); d != "" {
		s = d + ": " + s
	}
	if i.Severity == Warning {
		s += " (warning)"
	}
	return s
}

// LoadError is the error of Load, LoadFiles and Convert when manifests are rejected. It lists
// every error found, each with its document and field path.
type LoadError struct {
	// Issues are the errors (Severity Error), in document order.
	Issues []Issue
	// Warnings are the warnings found as well, for the complete picture.
	Warnings []Issue
}

// Error lists the issues, one per line after the first.
func (e *LoadError) Error() string {
	msgs := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		msgs[i] = is.String()
	}
	noun := "errors"
	if len(msgs) == 1 {
		noun = "error"
	}
	return fmt.Sprintf("kube: %d %s:\n\t%s", len(msgs), noun, strings.Join(msgs, "\n\t"))
}

// Is makes errors.Is(err, podlife.ErrInvalidSpec) true.
func (e *LoadError) Is(target error) bool { return target == podlife.ErrInvalidSpec }

// issues collects the issues of one document: the fields' issues (report.List) and the
// document they are in.
type issues struct {
	doc Document
	*report.List
}

func newIssues(doc Document) *issues { return &issues{doc: doc, List: &report.List{}} }

// all returns the issues recorded, in the order they were, as Issues of the document.
func (s *issues) all() []Issue {
	entries := s.Entries()
	list := make([]Issue, len(entries))
	for i, e := range entries {
		list[i] = Issue{Document: s.doc, Path: e.Path, Message: e.Message, Severity: Severity(e.Severity)}
	}
	return list
}

// split applies strict mode and separates errors from warnings, keeping their order.
func split(list []Issue, strict bool) (errs, warns []Issue) {
	for _, i := range list {
		if strict {
			i.Severity = Error
		}
		if i.Severity == Error {
			errs = append(errs, i)
		} else {
			warns = append(warns, i)
		}
	}
	return errs, warns
}

// sortIssues orders issues by document, then path, keeping the order of equal paths.
func sortIssues(list []Issue) {
	slices.SortStableFunc(list, func(a, b Issue) int {
		return cmp.Or(cmp.Compare(a.Document.Manifest, b.Document.Manifest),
			cmp.Compare(a.Document.Index, b.Document.Index), comparePaths(a.Path, b.Path))
	})
}

// comparePaths orders field paths with numeric indices compared as numbers, so that
// containers[2] comes before containers[10].
func comparePaths(a, b string) int {
	for a != "" && b != "" {
		ia, ib := strings.IndexByte(a, '['), strings.IndexByte(b, '[')
		if ia < 0 || ib < 0 || a[:ia] != b[:ib] {
			return strings.Compare(a, b)
		}
		ja, jb := strings.IndexByte(a[ia:], ']'), strings.IndexByte(b[ib:], ']')
		if ja < 0 || jb < 0 {
			return strings.Compare(a, b)
		}
		na, nb := a[ia+1:ia+ja], b[ib+1:ib+jb]
		if c := cmp.Compare(len(na), len(nb)); c != 0 && isDigits(na) && isDigits(nb) {
			return c
		}
		if c := strings.Compare(na, nb); c != 0 {
			return c
		}
		a, b = a[ia+ja+1:], b[ib+jb+1:]
	}
	return strings.Compare(a, b)
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
