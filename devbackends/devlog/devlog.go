// Package devlog is what the development backends share to record the
// requests they receive: a bounded ring and a status-remembering writer.
// Tests read the ring (GET /_dev/requests) to prove what the gate sent, and
// what it never sent.
package devlog

import (
	"net/http"
	"sync"
)

// Ring keeps the most recent entries, at most its size.
type Ring[T any] struct {
	mu    sync.Mutex
	items []T
	start int // index of the oldest entry
	n     int
}

// NewRing makes a ring of size entries (at least 1).
func NewRing[T any](size int) *Ring[T] {
	return &Ring[T]{items: make([]T, max(size, 1))}
}

// Add appends v, dropping the oldest entry when full.
func (r *Ring[T]) Add(v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n < len(r.items) {
		r.items[(r.start+r.n)%len(r.items)] = v
		r.n++
		return
	}
	r.items[r.start] = v
	r.start = (r.start + 1) % len(r.items)
}

// Snapshot returns the entries oldest first (never nil).
func (r *Ring[T]) Snapshot() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]T, r.n)
	for i := range out {
		out[i] = r.items[(r.start+i)%len(r.items)]
	}
	return out
}

// Clear empties the ring.
func (r *Ring[T]) Clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.items)
	r.start, r.n = 0, 0
}

// StatusWriter remembers the status written through it.
type StatusWriter struct {
	http.ResponseWriter
	code int
}

// WriteHeader records the first status.
func (w *StatusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write implies 200 when no status was written.
func (w *StatusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Status is the status written, 200 if none yet.
func (w *StatusWriter) Status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// Unwrap lets http.ResponseController reach Flush on the real writer.
func (w *StatusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
