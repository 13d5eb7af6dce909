package attempt

import (
	"github.com/podlife/podlife/internal/crilog"
)

// defaultLogLimits are Config.Logs' defaults (podlife's DefaultLogMaxSize and DefaultLogMaxFiles).
var defaultLogLimits = crilog.Limits{MaxSize: 10 << 20, MaxFiles: 5}
