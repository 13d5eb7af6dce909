package expand

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/podlife/podlife/podlife/kube/internal/report"
)

// The bounds of expansion: kube.MaxExpandedString, kube.MaxContainerEnvironment and
// kube.MaxExpansionTotal, whose comments say why.
const (
	// MaxString is the longest string a container may be given once expanded.
	MaxString = 128 << 10
	// MaxEnvironment bounds a container's environment, command and args together.
	MaxEnvironment = 2 << 20
	// MaxTotal bounds the bytes expansion produces in one load.
	MaxTotal = 16 << 20
)

// Budget is what expansion may still produce in one load (MaxTotal), shared by the
// conversions of its pods.
type Budget struct{ left int }

// NewBudget returns the budget of a load.
func NewBudget() *Budget { return &Budget{left: MaxTotal} }

// Expander expands the strings of a load's containers within the bounds, reporting a string
// that exceeds one at its path.
type Expander struct {
	Budget *Budget
	Issues *report.List
}

// Overrun tells which bound an expansion ran into.
type Overrun int

const (
	Fits            Overrun = iota // within every bound
	StringTooLong                  // MaxString
	ContainerTooBig                // MaxEnvironment
	LoadTooBig                     // MaxTotal
)

// NoRoom is the room of a string that MaxEnvironment does not bound.
const NoRoom = -1

// At expands s (see Expand) for the field at p, within MaxString, room (what
// is left of the container's MaxEnvironment, or NoRoom) and the load's budget. The
// expansion stops as soon as it would exceed one of them, which is reported at p.
func (x Expander) At(p *field.Path, s string, lookup func(string) (string, bool), room int) (string, Overrun) {
	limit, hit := MaxString, StringTooLong
	if room != NoRoom && room < limit {
		limit, hit = max(room, 0), ContainerTooBig
	}
	expands := strings.Contains(s, "$")
	if expands && x.Budget.left < limit {
		limit, hit = x.Budget.left, LoadTooBig
	}
	out, ok := Expand(s, lookup, limit)
	if !ok {
		x.Issues.Errorf(p, "Too long: %s", hit.Message(true))
		return "", hit
	}
	if expands {
		x.Budget.left -= len(out)
	}
	return out, Fits
}

// Message says what o exceeds; expanded tells whether the string was expanded.
func (o Overrun) Message(expanded bool) string {
	once := ""
	if expanded {
		once = " once $(VAR) references are expanded"
	}
	switch o {
	case StringTooLong:
		return fmt.Sprintf("may not be more than %d bytes%s (Linux's limit on one argument or environment string)", MaxString, once)
	case ContainerTooBig:
		return fmt.Sprintf("the container's environment, command and args may not be more than %d bytes in all%s (Linux's limit on what a process starts with)", MaxEnvironment, once)
	case LoadTooBig:
		return fmt.Sprintf("$(VAR) expansion may not produce more than %d bytes in all in one load", MaxTotal)
	}
	return ""
}

// List expands the elements of list (command or args) at p; room is as for At,
// and used tells how much of it the elements took. It stops at the first element refused
// (ok false).
func (x Expander) List(p *field.Path, list []string, lookup func(string) (string, bool), room int) (out []string, used int, ok bool) {
	if list == nil {
		return nil, 0, true
	}
	out = make([]string, len(list))
	for i, s := range list {
		r := NoRoom
		if room != NoRoom {
			r = max(room-used-1, 0)
		}
		v, hit := x.At(p.Index(i), s, lookup, r)
		if hit != Fits {
			return nil, used, false
		}
		out[i] = v
		used += len(v) + 1
	}
	return out, used, true
}
