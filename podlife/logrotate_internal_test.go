package podlife

import (
	"strings"
	"testing"
)

func TestLogLimitsValidate(t *testing.T) {
	for _, l := range []LogLimits{{MaxSize: -1}, {MaxSize: 100}, {MaxFiles: 1}, {MaxFiles: -2}} {
		if err := (Config{Logs: l}).Validate(); err == nil || !strings.Contains(err.Error(), "config.logs.") {
			t.Errorf("%+v: error %v, want one naming config.logs", l, err)
		}
	}
	if err := (Config{Logs: LogLimits{MaxSize: minLogMaxSize, MaxFiles: 2}}).Validate(); err != nil {
		t.Errorf("smallest limits refused: %v", err)
	}
}
