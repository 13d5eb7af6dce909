package podlifetest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadMountinfo(t *testing.T) {
	const sample = `22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
96 22 0:45 / /tmp/plt-1/with\040space rw,relatime shared:50 - tmpfs tmpfs rw
97 96 0:46 / /tmp/plt-1/with\040space/a\134b rw - overlay overlay rw,lowerdir=/x
`
	path := filepath.Join(t.TempDir(), "mountinfo")
	if err := os.WriteFile(path, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	mounts, err := readMountinfo(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []mount{
		{point: "/", fstype: "ext4", source: "/dev/vda"},
		{point: "/tmp/plt-1/with space", fstype: "tmpfs", source: "tmpfs"},
		{point: `/tmp/plt-1/with space/a\b`, fstype: "overlay", source: "overlay"},
	}
	if len(mounts) != len(want) {
		t.Fatalf("got %d mounts, want %d", len(mounts), len(want))
	}
	for i := range want {
		if mounts[i] != want[i] {
			t.Errorf("mount %d = %+v, want %+v", i, mounts[i], want[i])
		}
	}
}

func TestReadMountinfoMalformed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mountinfo")
	if err := os.WriteFile(path, []byte("22 1 254:0 / /\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readMountinfo(path); err == nil {
		t.Fatal("malformed mountinfo parsed")
	}
}
