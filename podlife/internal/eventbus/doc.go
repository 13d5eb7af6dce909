// Package eventbus keeps a pod's recent events and fans them out to subscribers, and fans
// every pod's out to the Runtime's subscribers. Publishing never blocks: a subscriber whose
// buffer is full loses events and later receives one EventsDropped event saying how many. A
// subscription ends, and its goroutine with it, when the subscriber's context is done.
//
// It imports podlife/internal/api (the Event type) and nothing else of the repository; it
// must not import package podlife or any package that builds pods.
package eventbus
