package httpget

import (
	"runtime/debug"
	"strings"
)

// module is the path of the module whose version goes into user agents.
const module = "github.com/podlife/podlife"

// UserAgent returns the default User-Agent header for product, such as
// "podlife-probe/1.4" for "podlife-probe"; see [Version].
func UserAgent(product string) string {
	return product + "/" + Version()
}

// Version returns "<major>.<minor>" of the podlife module as recorded in the
// build information of the running binary, such as "1.4", or "dev" when it is
// unknown (a development build, or a build without module information).
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if bi.Main.Path == module {
		return majorMinor(bi.Main.Version)
	}
	for _, d := range bi.Deps {
		if d.Path == module {
			if d.Replace != nil && d.Replace.Version != "" {
				return majorMinor(d.Replace.Version)
			}
			return majorMinor(d.Version)
		}
	}
	return "dev"
}

// majorMinor returns "<major>.<minor>" of a semantic version such as
// "v1.4.2", or "dev" if v is not one.
func majorMinor(v string) string {
	rest, ok := strings.CutPrefix(v, "v")
	if !ok {
		return "dev"
	}
	parts := strings.SplitN(rest, ".", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return "dev"
	}
	return parts[0] + "." + parts[1]
}
