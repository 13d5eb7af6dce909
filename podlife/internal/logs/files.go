package logs

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/podlife/podlife/podlife/internal/api"
)

// Files returns the log files of a container of the pod whose directory is podDir (CRI
// format, see ParseLine), oldest attempt first: the last one is the current attempt's, the one
// before it the previous attempt's (kubectl logs --previous). An invalid container name (see
// api.NameError) has no files.
func Files(podDir, container string) []string {
	if api.CheckName("container", container) != nil {
		return nil // names no container: not a path to join
	}
	dir := filepath.Join(podDir, "logs", container)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	type file struct {
		attempt int
		path    string
	}
	var files []file
	for _, e := range entries {
		n, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".log"))
		if err != nil || !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		files = append(files, file{n, filepath.Join(dir, e.Name())})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].attempt < files[j].attempt })
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.path
	}
	return out
}
