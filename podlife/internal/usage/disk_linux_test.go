package usage

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// du's count: allocated blocks of every file and directory, a hard-linked file once, a sparse
// file by what it allocates.
func TestDiskUsageCountsBlocks(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(i)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "b", "f"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "a", "b", "f"), filepath.Join(dir, "a", "g")); err != nil {
		t.Fatal(err)
	}
	sparse, err := os.Create(filepath.Join(dir, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sparse.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	sparse.Close()
	n, err := Disk(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if n < 1<<20 || n > 1<<20+64<<10 {
		t.Errorf("disk usage %d, want 1 MiB and its directories' blocks", n)
	}
	if n, err := Disk(context.Background(), filepath.Join(dir, "missing")); n != 0 || err != nil {
		t.Errorf("a missing directory: %d, %v", n, err)
	}
}
