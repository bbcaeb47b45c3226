package audit

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of a BatchWriter: a record reaches the file at most FlushDelay
// after it was written; MaxPending bounds the memory held for a slow disk.
const (
	DefaultFlushDelay = 5 * time.Millisecond
	DefaultFlushSize  = 64 << 10
	DefaultMaxPending = 4 << 20
	DefaultMaxWait    = 2 * time.Second
)

// ErrClosed is returned by a write after Close.
var ErrClosed = errors.New("audit: writer closed")

// BatchOptions tune a BatchWriter; zero fields take the defaults.
type BatchOptions struct {
	// FlushDelay is how long the first pending line waits for others to
	// share its write.
	FlushDelay time.Duration
	// FlushSize flushes at once when this many bytes are pending.
	FlushSize int
	// MaxPending is the back-pressure bound: a write that would exceed it
	// waits (at most MaxWait) for a flush to make room.
	MaxPending int
	MaxWait    time.Duration
	// OnLoss is told of lines (records) that never reached the file: a
	// write that still had no room after MaxWait, a write after Close, or
	// a failed file write. It must not write to this BatchWriter.
	OnLoss func(lostLines int, err error)
	// Sync is the durable mode (group commit): each batch is written and
	// then synced (fsync, when the writer has a Sync method) before the
	// writes it holds return, and a batch is written as soon as the one
	// before it landed instead of FlushDelay later: the lines that arrive
	// while one batch is being synced share the next write and sync.
	Sync bool
	// SyncWait bounds how long a write waits for its batch to land in
	// the durable mode (default DefaultSyncWait); past it the write
	// returns ErrNotLanded and its line may still land.
	SyncWait time.Duration
}

// DefaultSyncWait bounds a durable write's wait for its batch.
const DefaultSyncWait = 10 * time.Second

// ErrNotLanded is a durable write whose batch did not land within SyncWait.
var ErrNotLanded = errors.New("audit: the record's batch was not on disk within the sync wait")

// BatchWriter takes the file write off the request: Write appends to a
// pending buffer and one goroutine writes what is pending in one write
// call, FlushDelay after the first pending line (or at once past
// FlushSize). Nothing is dropped silently: when the disk falls behind,
// writers wait for room up to MaxWait (back-pressure on the calls being
// audited) and only then give the line up, counted in Lost and reported to
// OnLoss. Under a ChainWriter a lost line leaves a gap in the chain, so
// `wikigate audit verify` shows it too. Close and Flush write everything
// pending. In the durable mode (BatchOptions.Sync) a write returns only
// once its batch was written and synced: one write and one fsync per
// batch, the callers held meanwhile.
type BatchWriter struct {
	w   io.Writer
	opt BatchOptions

	mu      sync.Mutex
	pending []byte
	room    chan struct{} // closed (and replaced) after each flush
	closed  bool
	batch   *landing // what the pending lines wait for in the durable mode

	flushMu sync.Mutex // one flush at a time, in order
	spare   []byte

	kick chan struct{} // the first pending line since the last flush
	full chan struct{} // FlushSize reached
	stop chan struct{}
	done chan struct{}

	lost atomic.Uint64
}

// landing is one batch's outcome: done is closed once it was written (and
// synced), err says how that went.
type landing struct {
	done chan struct{}
	err  error
}

func newLanding() *landing { return &landing{done: make(chan struct{})} }

// NewBatchWriter starts the flushing goroutine; Close stops it.
func NewBatchWriter(w io.Writer, opt BatchOptions) *BatchWriter {
	opt.withDefaults()
	b := &BatchWriter{
		w: w, opt: opt,
		pending: make([]byte, 0, opt.FlushSize), spare: make([]byte, 0, opt.FlushSize),
		room: make(chan struct{}), batch: newLanding(),
		kick: make(chan struct{}, 1), full: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	go b.run()
	return b
}

func (o *BatchOptions) withDefaults() {
	if o.FlushDelay <= 0 {
		o.FlushDelay = DefaultFlushDelay
	}
	if o.FlushSize <= 0 {
		o.FlushSize = DefaultFlushSize
	}
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultMaxPending
	}
	if o.MaxPending < o.FlushSize {
		o.MaxPending = o.FlushSize
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.SyncWait <= 0 {
		o.SyncWait = DefaultSyncWait
	}
}

// Write queues p whole (a line is never split across batches). It returns
// an error only when p is lost; in the durable mode it returns once p's
// batch landed (or SyncWait passed: ErrNotLanded).
func (b *BatchWriter) Write(p []byte) (int, error) {
	t, err := b.Queue(p)
	if err == nil {
		err = b.Await(t)
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Ticket names the batch a queued line went into.
type Ticket struct{ l *landing }

// Queue queues p whole, like Write, and returns at once with the ticket
// Await waits on: a caller that must keep the order of its lines (the
// chain) queues under its own lock and waits outside it, so the lines of
// many callers share one batch.
func (b *BatchWriter) Queue(p []byte) (Ticket, error) {
	b.mu.Lock()
	if err := b.waitForRoom(len(p)); err != nil {
		b.mu.Unlock()
		b.loss(p, err)
		return Ticket{}, err
	}
	first := len(b.pending) == 0
	b.pending = append(b.pending, p...)
	size := len(b.pending)
	t := Ticket{b.batch}
	b.mu.Unlock()
	if first {
		signal(b.kick)
	}
	if size >= b.opt.FlushSize {
		signal(b.full)
	}
	return t, nil
}

// Await waits, in the durable mode, until the ticket's batch landed, at
// most SyncWait; it returns the batch's write or sync error. Without the
// durable mode it returns at once.
func (b *BatchWriter) Await(t Ticket) error {
	if !b.opt.Sync || t.l == nil {
		return nil
	}
	timer := time.NewTimer(b.opt.SyncWait)
	defer timer.Stop()
	select {
	case <-t.l.done:
		return t.l.err
	case <-timer.C:
		return ErrNotLanded
	}
}

// waitForRoom waits, with b.mu held on entry and on return, until n more
// bytes fit under MaxPending (a line larger than MaxPending fits an empty
// buffer), for at most MaxWait.
func (b *BatchWriter) waitForRoom(n int) error {
	var deadline <-chan time.Time
	for !b.closed && len(b.pending) > 0 && len(b.pending)+n > b.opt.MaxPending {
		room := b.room
		b.mu.Unlock()
		signal(b.full)
		if deadline == nil {
			t := time.NewTimer(b.opt.MaxWait)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-room:
			b.mu.Lock()
		case <-deadline:
			b.mu.Lock()
			return errors.New("audit: no room in the write buffer (the disk is not keeping up)")
		}
	}
	if b.closed {
		return ErrClosed
	}
	return nil
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (b *BatchWriter) run() {
	defer close(b.done)
	delay := time.NewTimer(time.Hour)
	delay.Stop()
	for {
		select {
		case <-b.kick:
			// The durable mode does not gather: what came while the last
			// batch was synced goes now (group commit).
			if !b.opt.Sync && !b.gather(delay) {
				b.flush()
				return
			}
		case <-b.full:
		case <-b.stop:
			b.flush()
			return
		}
		b.flush()
	}
}

// gather waits FlushDelay for more lines to share the write, less when
// FlushSize is reached; false when the writer is closing.
func (b *BatchWriter) gather(delay *time.Timer) bool {
	delay.Reset(b.opt.FlushDelay)
	defer delay.Stop()
	select {
	case <-delay.C:
	case <-b.full:
	case <-b.stop:
		return false
	}
	return true
}

// flush writes everything pending in one write call (and, in the durable
// mode, syncs it), then wakes the writers waiting for room and those
// waiting for the batch to land.
func (b *BatchWriter) flush() error {
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	b.mu.Lock()
	batch, landed := b.pending, b.batch
	b.pending = b.spare[:0]
	if len(batch) > 0 {
		b.batch = newLanding()
	}
	b.mu.Unlock()
	var err error
	if len(batch) > 0 {
		err = b.write(batch)
		landed.err = err
		close(landed.done)
	}
	b.spare = batch[:0]
	b.mu.Lock()
	close(b.room)
	b.room = make(chan struct{})
	b.mu.Unlock()
	return err
}

// write is one batch's write call, and its sync in the durable mode; a
// batch that failed either is counted lost.
func (b *BatchWriter) write(batch []byte) error {
	_, err := b.w.Write(batch)
	if s, ok := b.w.(interface{ Sync() error }); err == nil && b.opt.Sync && ok {
		err = s.Sync()
	}
	if err != nil {
		b.loss(batch, err)
	}
	return err
}

func (b *BatchWriter) loss(p []byte, err error) {
	n := max(bytes.Count(p, []byte{'\n'}), 1)
	b.lost.Add(uint64(n))
	if b.opt.OnLoss != nil {
		b.opt.OnLoss(n, err)
	}
}

// Lost is the number of lines that never reached the file.
func (b *BatchWriter) Lost() uint64 { return b.lost.Load() }

// Flush writes what is pending now.
func (b *BatchWriter) Flush() error { return b.flush() }

// Close writes what is pending and stops the goroutine; later writes fail
// with ErrClosed. It does not close the underlying writer.
func (b *BatchWriter) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.mu.Unlock()
	close(b.stop)
	<-b.done
	return nil
}
