package probing

import (
	"fmt"
	"time"

	"github.com/podlife/podlife/probe"
)

// KillOf is the kill of an instance of container whose kind of probe (spec) failed: the Killing
// event's message (restarts: its exit restarts it) and the grace period, the probe's if it has
// one, else podGrace (the kubelet's).
func KillOf(container string, kind probe.Kind, spec *probe.Spec, podGrace time.Duration, restarts bool) (msg string, grace time.Duration) {
	msg = fmt.Sprintf("Container %s failed %s probe", container, kind)
	if restarts {
		msg += ", will be restarted"
	}
	if spec.TerminationGracePeriod != nil {
		return msg, *spec.TerminationGracePeriod
	}
	return msg, podGrace
}
