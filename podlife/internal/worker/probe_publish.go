package worker

import "github.com/podlife/podlife/podlife/internal/worker/probing"

// ProbeResult is the result of one probe of a container of a pod this Runtime manages, before
// thresholds are applied, as the Host publishes it (PublishProbe). Its fields are documented
// at [probing.Result].
type ProbeResult = probing.Result
