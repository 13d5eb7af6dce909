package warmmember

import (
	"github.com/podlife/podlife/internal/failpoint"
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// WriteRecord writes the record of a taken member's pod (the worker's writeRecord's file). A
// pod's first record is synced before its processes start, except that of a pod taken from a
// warm pool (Claim sets syncLater): it is only renamed into place, which is what an adopter or
// another process's startup garbage collection reads, even after a kill -9 of this one, and it
// is synced while the processes start (syncRecord), before Run returns. A crash of the host
// before that sync may leave the record missing, empty or cut short: the pod's processes died
// with the host; the startup garbage collection removes a directory without a record as a
// half-created pod's, and one whose record is empty or cut short once it has proof the pod died
// with the host (its adoption lock free, its namespace pins unmounted: gc's diedWithHost); a
// record cut short by other means may be a live pod's, left alone with a warning. Later
// records, and every record of a pod that was no member (m nil), are written as any pod's
// (poddir.WriteJSON).
func (m *Member) WriteRecord(w Pod, path string, rec record.Record) error {
	if m == nil || !m.syncLater {
		return poddir.WriteJSON(path, rec)
	}
	m.syncLater = false // once: later records are synced as they are written
	// In place only once the /etc files and the hostname are the pod's (Claim rewrites them
	// meanwhile): a pod with a record is whole, for an adopter that would start it.
	f, err := poddir.WriteJSONUnsynced(path, rec, m.etcDone)
	if err != nil {
		return err
	}
	failpoint.Hit("take.record") // pod.json in place (not yet synced), no process started
	done := make(chan error, 1)
	m.recordSynced = done
	w.Go(GoRecordSync, func() { done <- poddir.SyncWritten(f, path) })
	return nil
}

// syncRecord waits for the sync of a taken member's first record (WriteRecord), if any; it
// runs on the start sequence, after the record is written.
func (m *Member) syncRecord() error {
	if m.recordSynced == nil {
		return nil
	}
	ch := m.recordSynced
	m.recordSynced = nil
	return <-ch
}
