//go:build !failpoints

package failpoint

// Enabled reports whether this is a failpoints build.
const Enabled = false

// Hit marks a failpoint: nothing in a normal build (see the package doc).
func Hit(string) {}
