package worker

import (
	"testing"

	"github.com/podlife/podlife/podlife/internal/worker/observe"
)

// The adopter's observation (worker/observe) reads the labels the worker writes: the same
// names and values.
func TestObserveLabels(t *testing.T) {
	for _, tc := range []struct{ worker, observe string }{
		{LabelContainer, observe.LabelContainer},
		{LabelKind, observe.LabelKind},
		{LabelAttempt, observe.LabelAttempt},
		{labelStopSignal, observe.LabelStopSignal},
		{LabelKindPause, observe.KindPause},
		{"ephemeral", observe.KindEphemeral}, // labels.go's value for an ephemeral container
	} {
		if tc.worker != tc.observe {
			t.Errorf("worker label %q, observe reads %q", tc.worker, tc.observe)
		}
	}
}
