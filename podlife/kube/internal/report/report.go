package report

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Severity says whether an issue stops the load; its values are those of kube.Severity.
type Severity int

const (
	// Warning: the field is dropped or not enforced, and running without it is safe.
	Warning Severity = iota + 1
	// Error: the manifest is rejected.
	Error
)

// DocumentPath is the path of an issue about a document as a whole (kube.DocumentPath).
const DocumentPath = "<document>"

// Entry is one issue: a field's path from the document's root, what is wrong with it, and
// how bad that is.
type Entry struct {
	Path     string
	Message  string
	Severity Severity
}

// List collects the issues of one document. Paths are *field.Path so that callers build
// them the way Kubernetes' validation does. The zero List is empty and ready to use.
type List struct {
	entries []Entry
	// errorPaths are the paths of the errors in entries, for Covered: a document can have
	// tens of thousands.
	errorPaths map[string]bool
}

// Entries returns the issues recorded, in the order they were.
func (s *List) Entries() []Entry { return s.entries }

// Add records an issue at p; a nil p is DocumentPath.
func (s *List) Add(sev Severity, p *field.Path, msg string) {
	path := ""
	if p != nil {
		path = p.String()
	}
	s.AddAt(sev, path, msg)
}

// AddAt records an issue at a path given as a string; an empty path is DocumentPath.
func (s *List) AddAt(sev Severity, path, msg string) {
	if path == "" {
		path = DocumentPath
	}
	s.entries = append(s.entries, Entry{Path: path, Message: msg, Severity: sev})
	if sev == Error {
		if s.errorPaths == nil {
			s.errorPaths = map[string]bool{}
		}
		s.errorPaths[path] = true
	}
}

// Errorf records an error at p.
func (s *List) Errorf(p *field.Path, format string, args ...any) {
	s.Add(Error, p, fmt.Sprintf(format, args...))
}

// Warnf records a warning at p.
func (s *List) Warnf(p *field.Path, format string, args ...any) {
	s.Add(Warning, p, fmt.Sprintf(format, args...))
}

// Field records a Kubernetes field error as an error, in Kubernetes' wording.
func (s *List) Field(fe *field.Error) {
	s.Add(Error, field.NewPath(fe.Field), fe.ErrorBody())
}

// HasErrors tells whether an error was recorded.
func (s *List) HasErrors() bool { return len(s.errorPaths) > 0 }

// Covered tells whether an error was recorded at path or at one of its ancestors, so that a
// consequence of it need not be reported again.
func (s *List) Covered(path string) bool {
	if s.errorPaths[path] {
		return true
	}
	for i := len(path) - 1; i > 0; i-- {
		if (path[i] == '.' || path[i] == '[') && s.errorPaths[path[:i]] {
			return true
		}
	}
	return false
}
