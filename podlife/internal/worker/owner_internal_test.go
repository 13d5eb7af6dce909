package worker

import "github.com/podlife/podlife/podlife/internal/worker/ownerloop"

// The test binary checks that no closure running on a pod's loop calls do or update.
func init() { ownerloop.EnableReentryCheck() }
