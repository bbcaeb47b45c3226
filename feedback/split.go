package feedback

import (
	"slices"

	bolt "go.etcd.io/bbolt"
)

// splitClosed handles an issue someone closed upstream: the record closes
// with what its issue saw (SyncedCount), and the occurrences after that
// move to a new open record, which the next sync step gives a new issue.
// A record an operator already closed locally keeps its occurrences (they
// merged while it was open); only its pending comments are dropped.
func splitClosed(tx *bolt.Tx, sr *storedRecord, ref IssueRef) (string, error) {
	sr.Issue = &ref
	pending := sr.Pending
	sr.Pending = nil
	wasOpen := sr.Status == StatusOpen
	moved := sr.Count - sr.SyncedCount
	sr.Status = StatusClosed
	if err := unindexOpen(tx, sr); err != nil {
		return "", err
	}
	if !wasOpen || moved <= 0 {
		return "", saveRecord(tx, sr)
	}
	id, err := nextID(tx, sr.Tool)
	if err != nil {
		return "", err
	}
	n := sr.splitTail(id, moved, pending)
	if err := saveRecord(tx, sr); err != nil {
		return "", err
	}
	if err := saveRecord(tx, n); err != nil {
		return "", err
	}
	return n.ID, tx.Bucket(bucketOpen).Put(openKey(n.Tool, n.DedupeKey), []byte(n.ID))
}

// splitTail moves the last moved occurrences of sr (count, callers,
// comments, pending syncs) into a new open record, so neither record counts
// an occurrence twice.
func (sr *storedRecord) splitTail(id string, moved int, pending []occurrence) *storedRecord {
	n := &storedRecord{Record: sr.Record.clone()}
	n.ID, n.Status, n.Issue, n.Count = id, StatusOpen, nil, moved

	k := min(moved, len(sr.Callers))
	n.Callers = slices.Clone(sr.Callers[len(sr.Callers)-k:])
	sr.Callers = sr.Callers[:len(sr.Callers)-k]
	n.Ratings = nil
	for _, c := range n.Callers {
		n.Ratings = n.Ratings.add(c.Rating, 1)
		sr.Ratings = sr.Ratings.add(c.Rating, -1)
	}
	c := min(commentsIn(pending), len(sr.Comments))
	n.Comments = slices.Clone(sr.Comments[len(sr.Comments)-c:])
	sr.Comments = sr.Comments[:len(sr.Comments)-c]

	sr.Count = sr.SyncedCount
	if len(sr.Callers) > 0 {
		sr.LastSeenAt = sr.Callers[len(sr.Callers)-1].At
	}
	for _, o := range pending {
		if o.Count -= sr.SyncedCount; o.Count > 0 {
			n.Pending = append(n.Pending, o)
		}
	}
	if len(n.Pending) == 0 && len(n.Callers) > 0 { // keep the new record in the outbox
		n.Pending = []occurrence{{Caller: n.Callers[len(n.Callers)-1], Count: moved}}
	}
	if len(n.Callers) > 0 {
		n.FirstSeenAt = n.Callers[0].At
	} else if len(n.Pending) > 0 {
		n.FirstSeenAt = n.Pending[0].Caller.At
	}
	return n
}

func commentsIn(occs []occurrence) int {
	n := 0
	for _, o := range occs {
		if o.Comment != "" {
			n++
		}
	}
	return n
}
