package worker

import (
	"testing"

	"github.com/podlife/podlife/podlife/internal/worker/observe"
	"github.com/podlife/podlife/podlife/internal/worker/podsandbox"
)

// The adopter's observation (worker/observe) reads the labels the worker writes: the same
// names and values.
func TestObserveLabels(t *testing.T) {
	for _, tc := range []struct{ worker, observe string }{
		{podsandbox.LabelContainer, observe.LabelContainer},
		{podsandbox.LabelKind, observe.LabelKind},
		{podsandbox.LabelAttempt, observe.LabelAttempt},
		{podsandbox.LabelStopSignal, observe.LabelStopSignal},
		{podsandbox.LabelKindPause, observe.KindPause},
		{podsandbox.KindEphemeral, observe.KindEphemeral},
	} {
		if tc.worker != tc.observe {
			t.Errorf("worker label %q, observe reads %q", tc.worker, tc.observe)
		}
	}
}
