package probe

import (
	"runtime/debug"
	"strings"
)

// probeUserAgent is the default User-Agent of HTTP probes.
var probeUserAgent = "podlife-probe/" + moduleVersion()

// moduleVersion returns "<major>.<minor>" of the podlife module as recorded in
// the build information, or "dev" when it is unknown (a development build).
func moduleVersion() string {
	const module = "github.com/podlife/podlife"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := ""
	if bi.Main.Path == module {
		v = bi.Main.Version
	} else {
		for _, d := range bi.Deps {
			if d.Path == module {
				v = d.Version
				if d.Replace != nil && d.Replace.Version != "" {
					v = d.Replace.Version
				}
				break
			}
		}
	}
	return majorMinor(v)
}

func majorMinor(v string) string {
	if !strings.HasPrefix(v, "v") {
		return "dev"
	}
	parts := strings.SplitN(v[1:], ".", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return "dev"
	}
	return parts[0] + "." + parts[1]
}
