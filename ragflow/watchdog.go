package ragflow

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// errStalled ends a call whose response stopped arriving: no first byte
// within the first-byte timeout, or silence longer than the idle timeout.
var errStalled = fmt.Errorf("response stalled: %w", context.DeadlineExceeded)

// limits bound one call. total caps it as a whole (0: no cap); firstByte
// and idle (0: off) bound how long the response may stay silent, before
// its first byte and between reads after it.
type limits struct {
	total, firstByte, idle time.Duration
}

// orDefault is d, or def when d is not positive.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// capped is d, lowered to limit when limit is positive.
func capped(d, limit time.Duration) time.Duration {
	if limit > 0 && limit < d {
		return limit
	}
	return d
}

// watchdog cancels its call with errStalled when the response is silent for
// too long. A generation is bounded by its silences rather than a total, so
// a long answer that keeps streaming is not cut, while a stuck one fails in
// seconds.
type watchdog struct {
	mu    sync.Mutex
	timer *time.Timer
	idle  time.Duration
}

// watch derives the call's context from ctx under lim. The returned stop
// ends the call and its timers; it must be called once the call is done.
// The watchdog is nil when lim sets no first-byte timeout.
func watch(ctx context.Context, lim limits) (context.Context, func(), *watchdog) {
	if lim.firstByte <= 0 {
		// No watchdog, so nothing cancels with errStalled: one context
		// (a retrieval's, with its total) instead of two.
		if lim.total > 0 {
			ctx, cancel := context.WithTimeout(ctx, lim.total)
			return ctx, cancel, nil
		}
		ctx, cancel := context.WithCancel(ctx)
		return ctx, cancel, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stopTotal := func() {}
	if lim.total > 0 {
		var cancelTotal context.CancelFunc
		ctx, cancelTotal = context.WithTimeout(ctx, lim.total)
		stopTotal = func() { cancelTotal() }
	}
	w := &watchdog{idle: lim.idle}
	w.timer = time.AfterFunc(lim.firstByte, func() { cancel(errStalled) })
	return ctx, func() { w.timer.Stop(); stopTotal(); cancel(nil) }, w
}

// touch records that bytes arrived: from now on the idle timeout applies.
func (w *watchdog) touch() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.idle > 0 {
		w.timer.Reset(w.idle)
	} else {
		w.timer.Stop()
	}
}

// watchBody makes every read of body that brings bytes reset w, when the
// call has a watchdog.
func watchBody(w *watchdog, body io.ReadCloser) io.ReadCloser {
	if w == nil {
		return body
	}
	return &watchedBody{ReadCloser: body, w: w}
}

type watchedBody struct {
	io.ReadCloser
	w *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.touch()
	}
	return n, err
}
