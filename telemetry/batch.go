package telemetry

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// batchConfig is the batch span processor's settings, the
// specification's OTEL_BSP_* variables.
type batchConfig struct {
	delay, timeout     time.Duration
	maxQueue, maxBatch int
}

// batchFromEnv reads OTEL_BSP_SCHEDULE_DELAY (5000 ms),
// OTEL_BSP_EXPORT_TIMEOUT (30000 ms), OTEL_BSP_MAX_QUEUE_SIZE (2048) and
// OTEL_BSP_MAX_EXPORT_BATCH_SIZE (512, at most the queue's size); a value
// that is not a positive integer is the default.
func batchFromEnv(getenv func(string) string) batchConfig {
	positive := func(key string, def int) int {
		if n := envInt(getenv, def, key); n > 0 {
			return n
		}
		return def
	}
	c := batchConfig{
		delay:    time.Duration(positive("OTEL_BSP_SCHEDULE_DELAY", 5000)) * time.Millisecond,
		timeout:  time.Duration(positive("OTEL_BSP_EXPORT_TIMEOUT", 30000)) * time.Millisecond,
		maxQueue: positive("OTEL_BSP_MAX_QUEUE_SIZE", 2048),
		maxBatch: positive("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512),
	}
	c.maxBatch = min(c.maxBatch, c.maxQueue)
	return c
}

// batcher is the batch span processor: an ended span joins a bounded
// queue (a full queue drops it and counts it), and one goroutine exports
// the queue every delay, or as soon as a batch's worth is waiting.
// Queueing a span is a lock and an append; the goroutine wakes once a
// batch, not once a span.
type batcher struct {
	exp   sdktrace.SpanExporter
	cfg   batchConfig
	store *spanStore // takes the spans' records back after their export

	mu      sync.Mutex
	queue   []*recSpan
	stopped bool
	dropped int // since the last report
	lost    int // in all

	wake chan struct{}     // a full batch is waiting (capacity 1)
	reqs chan flushRequest // ForceFlush and Shutdown
	done chan struct{}     // the goroutine has returned

	// The goroutine's own.
	spans    []*recSpan
	out      []sdktrace.ReadOnlySpan
	reported time.Time
}

// flushRequest asks the goroutine to export everything queued (and to
// return afterwards when stop is set), answering on reply.
type flushRequest struct {
	ctx   context.Context
	stop  bool
	reply chan error
}

func newBatcher(exp sdktrace.SpanExporter, cfg batchConfig, store *spanStore) *batcher {
	b := &batcher{exp: exp, cfg: cfg, store: store, wake: make(chan struct{}, 1), reqs: make(chan flushRequest), done: make(chan struct{})}
	go b.run()
	return b
}

// enqueue queues an ended, sampled span, or drops it when the queue is
// full or the processor shut down.
func (b *batcher) enqueue(s *recSpan) {
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return
	}
	if len(b.queue) >= b.cfg.maxQueue {
		b.dropped++
		b.lost++
		b.mu.Unlock()
		return
	}
	b.queue = append(b.queue, s)
	n := len(b.queue)
	b.mu.Unlock()
	if n%b.cfg.maxBatch == 0 {
		select {
		case b.wake <- struct{}{}:
		default:
		}
		if n > b.cfg.maxBatch {
			// A second batch is waiting and the goroutine has not taken
			// the first: it was woken onto this P (the scheduler runs a
			// woken goroutine next on the waker's P) and a busy caller
			// keeps it waiting there. Yield once a batch, so that a burst
			// of calls does not fill the queue and lose spans while the
			// exporter is idle.
			runtime.Gosched()
		}
	}
}

// run is the export goroutine.
func (b *batcher) run() {
	defer close(b.done)
	timer := time.NewTimer(b.cfg.delay)
	defer timer.Stop()
	for {
		select {
		case <-b.wake:
			b.export(context.Background(), false)
		case <-timer.C:
			b.export(context.Background(), true)
			timer.Reset(b.cfg.delay)
		case r := <-b.reqs:
			r.reply <- b.export(r.ctx, true)
			if r.stop {
				return
			}
		}
	}
}

// export sends the queue to the exporter in batches: all of it, or (not
// all) the full batches only. An export error is returned to a flush and
// reported through the error handler (Options.OnError) as the SDK's
// batch processor does; so, at most once a delay, is the number of spans
// a full queue dropped.
func (b *batcher) export(ctx context.Context, all bool) error {
	var err error
	for b.take(all) {
		for _, s := range b.spans {
			s.finish()
			b.out = append(b.out, s)
		}
		ectx, cancel := context.WithTimeout(ctx, b.cfg.timeout)
		if e := b.exp.ExportSpans(ectx, b.out); e != nil {
			err = e
			otel.Handle(e)
		}
		cancel()
		clear(b.out)
		b.out = b.out[:0]
		b.store.put(b.spans) // the exporter is done with them
		clear(b.spans)
		b.spans = b.spans[:0]
	}
	b.reportDropped()
	return err
}

// take moves the next batch from the queue to b.spans; false when there
// is none to export (the queue is empty, or holds less than a batch and
// all is false).
func (b *batcher) take(all bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(b.queue)
	if n == 0 || (!all && n < b.cfg.maxBatch) {
		return false
	}
	k := min(n, b.cfg.maxBatch)
	b.spans = append(b.spans, b.queue[:k]...)
	rest := copy(b.queue, b.queue[k:])
	clear(b.queue[rest:])
	b.queue = b.queue[:rest]
	return true
}

// reportDropped reports the spans a full queue dropped since the last
// report, at most once a delay.
func (b *batcher) reportDropped() {
	if time.Since(b.reported) < b.cfg.delay {
		return
	}
	b.mu.Lock()
	n := b.dropped
	b.dropped = 0
	b.mu.Unlock()
	if n > 0 {
		b.reported = time.Now()
		otel.Handle(fmt.Errorf("tracing: the span queue was full (OTEL_BSP_MAX_QUEUE_SIZE=%d): %d spans dropped", b.cfg.maxQueue, n))
	}
}

// lostSpans is how many spans a full queue has dropped in all.
func (b *batcher) lostSpans() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lost
}

// forceFlush exports every span queued so far.
func (b *batcher) forceFlush(ctx context.Context) error {
	return b.request(ctx, false)
}

// shutdown exports what is queued, stops the goroutine and shuts the
// exporter down; spans ended afterwards are dropped. A second shutdown
// does nothing.
func (b *batcher) shutdown(ctx context.Context) error {
	b.mu.Lock()
	was := b.stopped
	b.stopped = true
	b.mu.Unlock()
	if was {
		return nil
	}
	err := b.request(ctx, true)
	if e := b.exp.Shutdown(ctx); err == nil {
		err = e
	}
	b.store.drop()
	return err
}

// request hands the goroutine a flush and waits for it, or for ctx.
func (b *batcher) request(ctx context.Context, stop bool) error {
	r := flushRequest{ctx: ctx, stop: stop, reply: make(chan error, 1)}
	select {
	case b.reqs <- r:
	case <-b.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-r.reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
