package podlife

import "github.com/podlife/podlife/podlife/internal/api"

// capNames normalises names, leaving ALL out.
func capNames(names []string) (caps []string, all bool) {
	for _, n := range names {
		if c := api.CapName(n); c == api.CapAll {
			all = true
		} else {
			caps = append(caps, c)
		}
	}
	return caps, all
}
