package podlife

import (
	"github.com/podlife/podlife/podlife/internal/tasks"
)

// class is the runtime class as the tasks run it.
func (rt ctrRuntime) class() tasks.Class {
	return tasks.Class{Runtime: rt.runtime(), SpecOpts: rt.specOpts()}
}
