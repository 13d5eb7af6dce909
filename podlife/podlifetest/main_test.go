package podlifetest_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/podlife/podlife/podlife/podlifetest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if os.Geteuid() == 0 {
		// runc and the client's default cgroup parent leave per-namespace
		// directories behind; testNamespace is ours alone.
		if err := podlifetest.RemoveNamespaceDirs(testNamespace); err != nil {
			fmt.Fprintln(os.Stderr, "leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
