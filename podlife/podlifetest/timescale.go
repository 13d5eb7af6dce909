package podlifetest

import (
	"os"
	"strconv"
	"time"
)

// SlowEnv names the environment variable that tells tests how much slower than a developer's
// machine the host runs: a positive integer (default 1). hack/vm/guest-run.sh sets it in a VM
// under emulation (TCG), where containers start and execs run 20-30 times slower.
const SlowEnv = "PODLIFE_TEST_SLOW"

// TimeScale returns the factor in PODLIFE_TEST_SLOW, or 1 when it is unset or not a positive
// integer.
func TimeScale() int {
	n, err := strconv.Atoi(os.Getenv(SlowEnv))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// Budget returns d multiplied by [TimeScale]. Use it for upper bounds only: a test's context, how
// long it waits for something to happen, a probe or hook timeout the test chose, the most time
// or CPU an operation may take. A lower bound (something must not happen before a time the test
// set, e.g. a grace period) stays as it is: a slow host only makes it easier to meet.
func Budget(d time.Duration) time.Duration {
	return d * time.Duration(TimeScale())
}
