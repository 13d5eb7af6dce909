package teardown

import "time"

// AwaitStart lets a start sequence that a stop cancelled return (done closed). A start policy
// that ignores its context is waited for settle at most: then abandon is called (the stop goes
// on without it), and the creations it has in flight (inFlight, bounded and not cancellable)
// are waited for, so that none races the teardown; done closing ends every wait.
func AwaitStart(done <-chan struct{}, settle time.Duration, abandon func(), inFlight ...<-chan struct{}) {
	timer := time.NewTimer(settle)
	defer timer.Stop()
	select {
	case <-done:
		return
	case <-timer.C:
	}
	abandon()
	for _, ch := range inFlight {
		select {
		case <-ch:
		case <-done:
			return
		}
	}
}
