package api

// Event reasons of adoption.
const (
	// ReasonAdopted: a process took over the pod's supervision (Runtime.Adopt).
	ReasonAdopted Reason = "Adopted"
	// ReasonStartInterrupted: the adopted pod's start sequence had not finished when its
	// manager died; it is stopped and left for Remove.
	ReasonStartInterrupted Reason = "StartInterrupted"
	// ReasonLogsNotFollowed: the adopted pod's containers wrote their output to the previous
	// manager (no Config.ContainerLogger): nothing logs their current attempts.
	ReasonLogsNotFollowed Reason = "LogsNotFollowed"
)
