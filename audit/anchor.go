package audit

import (
	"sync"
	"time"
)

// An anchored chain: the hash chain shows a removed, reordered or edited
// line inside the file, but not an edit of the file's last line (nothing
// later names its hash), a removed tail, or a file whose every hash was
// recomputed after an edit. Those are caught only against a head kept
// where an attacker with the file cannot rewrite it: the gate publishes
// its stream's head (stream, seq, hash) at an interval and at shutdown
// (the process log, a metric, optionally a remote endpoint; docs/security.md,
// Audit), and VerifyAnchored checks a file against the
// heads so published.

// Head returns the chain's last record: its stream, seq and hash (zero
// seq before the first record).
func (c *ChainWriter) Head() Head {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Head{Stream: c.stream, Seq: c.seq, Hash: string(c.prev)}
}

// anchor publishes a chain file's head every interval (when it moved) and
// once more when the file is closed, after its close record.
type anchor struct {
	publish func(Head)
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	last    uint64 // the seq last published
}

// Anchor starts publishing the file's head with publish: every interval
// (none when interval <= 0) if records were written since the last one,
// and at Close, after the close record has reached the file. A published
// head always names a record already written to the file (the head is
// read, then what is pending is flushed). Call it once, before records are
// written.
func (c *ChainFile) Anchor(interval time.Duration, publish func(Head)) {
	a := &anchor{publish: publish, stop: make(chan struct{}), done: make(chan struct{})}
	c.anchor = a
	if interval <= 0 {
		close(a.done)
		return
	}
	go func() {
		defer close(a.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				a.tick(c)
			case <-a.stop:
				return
			}
		}
	}()
}

// tick publishes the head if it moved since the last publication.
func (a *anchor) tick(c *ChainFile) {
	h := c.Head()
	if err := c.batch.Flush(); err != nil {
		return // not on disk: publishing it would anchor a record the file lacks
	}
	a.mu.Lock()
	moved := h.Seq != a.last
	a.last = h.Seq
	a.mu.Unlock()
	if moved {
		a.publish(h)
	}
}

// closing stops the interval; final publishes the head after the close
// record was written.
func (a *anchor) closing() {
	if a == nil {
		return
	}
	select {
	case <-a.stop:
	default:
		close(a.stop)
	}
	<-a.done
}

func (a *anchor) final(h Head) {
	if a != nil && h.Seq > 0 {
		a.publish(h)
	}
}
