package api

// ReasonStartedFromPool is the event of a pod that Run started from a warm pool member (see
// Runtime.Prewarm): its sandbox and containers were made before, only its processes started.
const ReasonStartedFromPool Reason = "StartedFromPool"
