package podlifetest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// mount is one line of /proc/self/mountinfo.
type mount struct {
	point, fstype, source string
}

// mountsUnder returns the mounts at or below dir, deepest first, so that
// they can be unmounted in that order.
func mountsUnder(dir string) ([]mount, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	all, err := readMountinfo("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	var under []mount
	for _, m := range all {
		if m.point == dir || strings.HasPrefix(m.point, dir+"/") {
			under = append(under, m)
		}
	}
	// Later mounts may stack on earlier ones: unmount in reverse order, and
	// deeper paths before their parents.
	slices.Reverse(under)
	slices.SortStableFunc(under, func(a, b mount) int {
		return strings.Count(b.point, "/") - strings.Count(a.point, "/")
	})
	return under, nil
}

// readMountinfo parses a mountinfo file (see proc(5)).
func readMountinfo(path string) ([]mount, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var mounts []mount
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := slices.Index(fields, "-")
		if len(fields) < 5 || sep < 5 || len(fields) < sep+3 {
			return nil, fmt.Errorf("%s: malformed line %q", path, sc.Text())
		}
		mounts = append(mounts, mount{
			point:  unescapeMountField(fields[4]),
			fstype: fields[sep+1],
			source: unescapeMountField(fields[sep+2]),
		})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return mounts, nil
}

// unescapeMountField undoes the kernel's octal escapes (\040 for a space,
// \011, \012, \134) in a mountinfo field.
func unescapeMountField(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
