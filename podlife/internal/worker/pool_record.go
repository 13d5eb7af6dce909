package worker

import (
	"github.com/podlife/podlife/podlife/internal/poddir"
	"github.com/podlife/podlife/podlife/internal/worker/record"
)

// writeRecordFile writes the pod's record (writeRecord's file). A pod's first record is synced
// before its processes start, except that of a pod taken from a warm pool (ClaimMember sets
// warm.syncLater): it is only renamed into place, which is what an adopter or another process's
// startup garbage collection reads, even after a kill -9 of this one, and it is synced while
// the processes start (syncRecord), before Run returns. A crash of the host before that sync may
// leave the record missing, empty or cut short: the pod's processes died with the host; the
// startup garbage collection removes a directory without a record as a half-created pod's, and
// leaves one whose record is unreadable (empty or cut short included) alone with a warning, as a
// record cut short by other means may be a live pod's.
func (p *Worker) writeRecordFile(path string, rec record.Record) error {
	if p.warm == nil || !p.warm.syncLater {
		return poddir.WriteJSON(path, rec)
	}
	p.warm.syncLater = false // once: later records are synced as they are written
	// In place only once the /etc files and the hostname are the pod's (ClaimMember rewrites
	// them meanwhile): a pod with a record is whole, for an adopter that would start it.
	f, err := poddir.WriteJSONUnsynced(path, rec, p.warm.etcDone)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	p.warm.recordSynced = done
	p.spawn(gRecordSync, func() { done <- poddir.SyncWritten(f, path) })
	return nil
}

// syncRecord waits for the sync of a taken member's first record (writeRecordFile), if any; it
// runs on the start sequence, after writeRecord.
func (p *Worker) syncRecord() error {
	if p.warm == nil || p.warm.recordSynced == nil {
		return nil
	}
	ch := p.warm.recordSynced
	p.warm.recordSynced = nil
	return <-ch
}
