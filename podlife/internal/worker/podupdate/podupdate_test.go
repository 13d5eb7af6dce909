package podupdate

import (
	"errors"
	"testing"
	"time"

	"github.com/podlife/podlife/podlife/internal/api"
)

// A condition set from outside keeps its transition time until its status changes, and the
// readiness gates hold the pod back until their conditions are True.
func TestSetConditionAndGates(t *testing.T) {
	t0, t1 := time.Unix(100, 0), time.Unix(200, 0)
	const gate api.ConditionType = "example.com/ready"
	gates := []api.ConditionType{gate}
	if msg := GatesMessage(gates, nil); msg != `corresponding condition of pod readiness gate "example.com/ready" does not exist.` {
		t.Errorf("no condition: %q", msg)
	}
	conds := SetCondition(nil, gate, api.ConditionFalse, "Wait", "not yet", t0)
	if msg := GatesMessage(gates, conds); msg != `the status of pod readiness gate "example.com/ready" is not "True", but False` {
		t.Errorf("false: %q", msg)
	}
	conds = SetCondition(conds, gate, api.ConditionFalse, "Wait", "still not", t1)
	if len(conds) != 1 || !conds[0].LastTransitionTime.Equal(t0) || conds[0].Message != "still not" {
		t.Errorf("same status: %+v", conds)
	}
	conds = SetCondition(conds, gate, api.ConditionTrue, "", "", t1)
	if !conds[0].LastTransitionTime.Equal(t1) || GatesMessage(gates, conds) != "" {
		t.Errorf("true: %+v, %q", conds, GatesMessage(gates, conds))
	}
	if err := ValidateCondition("p", api.PodReady, api.ConditionTrue); !errors.Is(err, api.ErrInvalidSpec) {
		t.Errorf("Ready set from outside: %v", err)
	}
	if err := ValidateCondition("p", gate, "Maybe"); !errors.Is(err, api.ErrInvalidSpec) {
		t.Errorf("status Maybe: %v", err)
	}
	if err := ValidateCondition("p", gate, api.ConditionTrue); err != nil {
		t.Errorf("gate True: %v", err)
	}
}
