package podlife

import (
	"testing"

	"github.com/podlife/podlife/podlife/daemon"
	"github.com/podlife/podlife/podlife/internal/layout"
)

// TestLayoutMatches: podlife/daemon stops a state dir's private containerd from what package
// layout says about the state dir; it must say what podlife does.
func TestLayoutMatches(t *testing.T) {
	if DefaultStateDir != layout.DefaultStateDir || labelPod != layout.LabelPod {
		t.Errorf("layout says state dir %q, label %q; podlife says %q, %q",
			layout.DefaultStateDir, layout.LabelPod, DefaultStateDir, labelPod)
	}
	if labelPodUID != layout.LabelPodUID || labelStateDir != layout.LabelStateDir || recordFile != layout.RecordFile {
		t.Errorf("layout says labels %q, %q, record %q; podlife says %q, %q, %q", layout.LabelPodUID,
			layout.LabelStateDir, layout.RecordFile, labelPodUID, labelStateDir, recordFile)
	}
	if got, want := daemon.PrivateDir("/s"), "/s/containerd"; got != want {
		t.Errorf("daemon.PrivateDir = %q, want %q", got, want)
	}
}
