package podlifetest

import "testing"

func TestCgroupUnder(t *testing.T) {
	file := []byte("12:pids:/plt-1-2/abc\n11:cpu,cpuacct:/plt-1-2/abc\n0::/\n")
	for _, tc := range []struct {
		file []byte
		root string
		want string
		ok   bool
	}{
		{file, "/plt-1-2", "/plt-1-2/abc", true},
		{file, "/plt-1", "", false}, // a prefix of the name is not the namespace
		{[]byte("5:memory:/plt-1-2\n"), "/plt-1-2", "/plt-1-2", true},
		{[]byte("5:memory:/user.slice\n0::/plt-1-2/pod1/c\n"), "/plt-1-2", "/plt-1-2/pod1/c", true},
		{[]byte(""), "/plt-1-2", "", false},
	} {
		got, ok := cgroupUnder(tc.file, tc.root)
		if got != tc.want || ok != tc.ok {
			t.Errorf("cgroupUnder(%q, %q) = %q, %v; want %q, %v", tc.file, tc.root, got, ok, tc.want, tc.ok)
		}
	}
}
