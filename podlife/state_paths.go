package podlife

import "github.com/podlife/podlife/podlife/internal/hostcheck"

// realDir returns path, a path under the state dir as the configuration spells it, under the
// state dir as New resolved it (see hostcheck.RealPath): compare that one with mount points.
// A path outside the state dir, or a Runtime that New did not make, gives path unchanged.
func (r *Runtime) realDir(path string) string {
	return hostcheck.RealPath(r.cfg.StateDir, r.stateReal, path)
}
