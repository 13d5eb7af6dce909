package api

// Reason is a short CamelCase word saying why: an event's reason, a container's waiting or
// terminated reason, a pod's failure reason. podlife's reasons are the Reason constants, with
// the kubelet's spellings where the kubelet has one, so that callers can switch on them; the
// public package podlife/reasons gives them to programs.
type Reason string
