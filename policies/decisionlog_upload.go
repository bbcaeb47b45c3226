package policies

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Defaults of an upload to a decision-log service.
const (
	DefaultUploadBatch    = 100
	DefaultUploadInterval = 5 * time.Second
	defaultRetryMin       = time.Second
	defaultRetryMax       = time.Minute
	// flushTimeout bounds the last upload when the configuration unloads,
	// so a dead log service cannot hold a shutdown.
	flushTimeout = 5 * time.Second
)

// UploadOptions send decision events to a service that speaks OPA's
// decision-log API (plugins/logs): each batch is one POST of a gzipped JSON
// array of events, Content-Encoding: gzip, any 2xx accepting it.
type UploadOptions struct {
	// URL receives the POSTs (OPA's service URL with its resource, e.g.
	// https://logs.example.com/logs).
	URL string
	// Headers are added to every POST (Authorization: Bearer ... from the
	// operator's secret); never logged.
	Headers map[string]string
	// Batch is the most events in one POST (DefaultUploadBatch); Interval
	// the longest an event waits for its batch to fill (DefaultUploadInterval).
	Batch    int
	Interval time.Duration
	// Buffer bounds the events waiting for upload, failed batches included
	// (DefaultDecisionLogBuffer); beyond it events are dropped and counted.
	Buffer int
	// RetryMin and RetryMax bound the wait after a failed POST: RetryMin,
	// doubling up to RetryMax until one succeeds (1s, 1m).
	RetryMin, RetryMax time.Duration
	// Client posts the batches; nil: a client with a 30s timeout.
	Client *http.Client
}

// uploader holds events for a decision-log service and posts them in
// batches from its own goroutine: a slow or dead service fills its bounded
// queue (then drops and counts), it never slows a decision.
type uploader struct {
	o       UploadOptions
	dropped func(n int) // counts events dropped because the queue was full
	failed  func(error) // logs a failed POST (at most once per backoff)

	mu     sync.Mutex
	queue  []Event
	wake   chan struct{} // a batch is full
	closed chan struct{} // the writer stopped: flush and return
	done   chan struct{}
}

func newUploader(o UploadOptions, dropped func(int), failed func(error)) *uploader {
	if o.Batch <= 0 {
		o.Batch = DefaultUploadBatch
	}
	if o.Interval <= 0 {
		o.Interval = DefaultUploadInterval
	}
	if o.Buffer <= 0 {
		o.Buffer = DefaultDecisionLogBuffer
	}
	if o.RetryMin <= 0 {
		o.RetryMin = defaultRetryMin
	}
	if o.RetryMax < o.RetryMin {
		o.RetryMax = max(defaultRetryMax, o.RetryMin)
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 30 * time.Second}
	}
	u := &uploader{o: o, dropped: dropped, failed: failed, wake: make(chan struct{}, 1),
		closed: make(chan struct{}), done: make(chan struct{})}
	go u.run()
	return u
}

// add queues ev, or drops it when the queue is full.
func (u *uploader) add(ev Event) {
	u.mu.Lock()
	full := len(u.queue) >= u.o.Buffer
	if !full {
		u.queue = append(u.queue, ev)
	}
	ready := len(u.queue) >= u.o.Batch
	u.mu.Unlock()
	if full {
		u.dropped(1)
		return
	}
	if ready {
		select {
		case u.wake <- struct{}{}:
		default:
		}
	}
}

// close flushes what is queued (bounded by flushTimeout) and waits for it.
func (u *uploader) close() {
	close(u.closed)
	<-u.done
}

func (u *uploader) run() {
	defer close(u.done)
	tick := time.NewTicker(u.o.Interval)
	defer tick.Stop()
	for {
		select {
		case <-u.closed:
			u.flush()
			return
		case <-tick.C:
		case <-u.wake:
		}
		if !u.sendUntilDone() {
			return
		}
	}
}

// sendUntilDone sends the queue, retrying with backoff until it is sent,
// and reports false when the uploader was closed meanwhile (after its
// flush). It retries by itself rather than waiting for the next wake: the
// batch that woke it may have been the last one queued, and its wake is
// already spent.
func (u *uploader) sendUntilDone() bool {
	wait := u.o.RetryMin
	for {
		err := u.sendAll(context.Background())
		if err == nil {
			return true
		}
		u.failed(err)
		select { // back off before the next attempt
		case <-u.closed:
			u.flush()
			return false
		case <-time.After(wait):
		}
		wait = min(2*wait, u.o.RetryMax)
	}
}

// flush sends everything queued, once, within flushTimeout.
func (u *uploader) flush() {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := u.sendAll(ctx); err != nil {
		u.failed(err)
	}
}

// sendAll posts the queue batch by batch; a failed batch stays at the head
// of the queue for the next attempt.
func (u *uploader) sendAll(ctx context.Context) error {
	for {
		u.mu.Lock()
		batch := u.queue[:min(len(u.queue), u.o.Batch)]
		u.mu.Unlock()
		if len(batch) == 0 {
			return nil
		}
		if err := u.post(ctx, batch); err != nil {
			return err
		}
		u.mu.Lock()
		u.queue = u.queue[len(batch):]
		u.mu.Unlock()
	}
}

// post sends one batch as OPA's logs plugin does.
func (u *uploader) post(ctx context.Context, batch []Event) error {
	body, err := gzipJSON(batch)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.o.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	for k, v := range u.o.Headers {
		req.Header.Set(k, v)
	}
	resp, err := u.o.Client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("decision log upload: HTTP %s", resp.Status)
	}
	return nil
}

func gzipJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(v); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
