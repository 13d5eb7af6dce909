package ocibuild

import "github.com/podlife/podlife/podlife/internal/api"

// CapNames normalises names, leaving ALL out.
func CapNames(names []string) (caps []string, all bool) {
	for _, n := range names {
		if c := api.CapName(n); c == api.CapAll {
			all = true
		} else {
			caps = append(caps, c)
		}
	}
	return caps, all
}
