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
}

// BatchWriter takes the file write off the request: Write appends to a
// pending buffer and one goroutine writes what is pending in one write
// call, FlushDelay after the first pending line (or at once past
// FlushSize). Nothing is dropped silently: when the disk falls behind,
// writers wait for room up to MaxWait (back-pressure on the calls being
// audited) and only then give the line up, counted in Lost and reported to
// OnLoss. Under a ChainWriter a lost line leaves a gap in the chain, so
// `wikigate audit verify` shows it too. Close and Flush write everything
// pending.
type BatchWriter struct {
	w   io.Writer
	opt BatchOptions

	mu      sync.Mutex
	pending []byte
	room    chan struct{} // closed (and replaced) after each flush
	closed  bool

	flushMu sync.Mutex // one flush at a time, in order
	spare   []byte

	kick chan struct{} // the first pending line since the last flush
	full chan struct{} // FlushSize reached
	stop chan struct{}
	done chan struct{}

	lost atomic.Uint64
}

// NewBatchWriter starts the flushing goroutine; Close stops it.
func NewBatchWriter(w io.Writer, opt BatchOptions) *BatchWriter {
	opt.withDefaults()
	b := &BatchWriter{
		w: w, opt: opt,
		pending: make([]byte, 0, opt.FlushSize), spare: make([]byte, 0, opt.FlushSize),
		room: make(chan struct{}),
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
}

// Write queues p whole (a line is never split across batches). It returns
// an error only when p is lost.
func (b *BatchWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	if err := b.waitForRoom(len(p)); err != nil {
		b.mu.Unlock()
		b.loss(p, err)
		return 0, err
	}
	first := len(b.pending) == 0
	b.pending = append(b.pending, p...)
	size := len(b.pending)
	b.mu.Unlock()
	if first {
		signal(b.kick)
	}
	if size >= b.opt.FlushSize {
		signal(b.full)
	}
	return len(p), nil
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
			if !b.gather(delay) {
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

// flush writes everything pending in one write call and wakes the writers
// waiting for room.
func (b *BatchWriter) flush() error {
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	b.mu.Lock()
	batch := b.pending
	b.pending = b.spare[:0]
	b.mu.Unlock()
	var err error
	if len(batch) > 0 {
		if _, err = b.w.Write(batch); err != nil {
			b.loss(batch, err)
		}
	}
	b.spare = batch[:0]
	b.mu.Lock()
	close(b.room)
	b.room = make(chan struct{})
	b.mu.Unlock()
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
