package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// DefaultKeepAlive is how long a stream may stay silent before the writer
// sends a comment: shorter than the idle timeouts of common proxies and
// load balancers (30-60s), so none of them cuts a slow generation.
const DefaultKeepAlive = 15 * time.Second

// keepAliveComment is an SSE comment: clients ignore it, proxies see bytes.
const keepAliveComment = ": keep-alive\n\n"

// errClosed refuses writes once the stream was closed.
var errClosed = errors.New("stream closed")

// Writer frames events on an HTTP response. The headers go out with the
// first event, so a call refused before it can still answer plain JSON
// with its own status. Every event is flushed at once (through
// http.ResponseController, which reaches the connection through Caddy's
// wrappers); a keep-alive comment follows any silence of KeepAlive. It is
// safe for concurrent use: the keep-alive timer writes from its own
// goroutine.
type Writer struct {
	mu        sync.Mutex
	w         http.ResponseWriter
	rc        *http.ResponseController
	keepAlive time.Duration
	timer     *time.Timer
	id        int
	started   bool
	closed    bool
	err       error // the first failed write: the client went away
	rec       *Recording
}

// Record keeps every event sent from now on in rec, so a reader that lost
// the connection can resume (Replay.Follow); Close ends the recording.
func (s *Writer) Record(rec *Recording) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rec = rec
}

// WriteFrame writes an event already framed (a replayed one), starting the
// stream if needed.
func (s *Writer) WriteFrame(frame string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	s.start()
	return s.write(frame)
}

// NewWriter writes to w; keepAlive <= 0 takes DefaultKeepAlive.
func NewWriter(w http.ResponseWriter, keepAlive time.Duration) *Writer {
	if keepAlive <= 0 {
		keepAlive = DefaultKeepAlive
	}
	return &Writer{w: w, rc: http.NewResponseController(w), keepAlive: keepAlive}
}

// Started reports whether the stream's headers went out.
func (s *Writer) Started() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// Err is the first write error (nil while the client reads).
func (s *Writer) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Send writes one event, starting the stream if needed. data is encoded
// as one line of JSON, HTML characters unescaped (as the JSON routes
// write them).
func (s *Writer) Send(name string, data any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(data); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	s.start()
	s.id++
	frame := "event: " + name + "\nid: " + strconv.Itoa(s.id) + "\ndata: " + string(bytes.TrimRight(buf.Bytes(), "\n")) + "\n\n"
	if s.rec != nil {
		s.rec.add(frame) // kept before it is written: any id a reader saw can be resumed after
	}
	return s.write(frame)
}

// Close stops the keep-alive; nothing is written afterwards. It must be
// called before the handler returns.
func (s *Writer) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.rec != nil {
		s.rec.end()
	}
	if s.timer != nil {
		s.timer.Stop()
	}
}

// start sends the headers once. Caller holds mu.
func (s *Writer) start() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx in front: do not buffer the stream
	h.Del("Content-Length")
	s.w.WriteHeader(http.StatusOK)
	s.timer = time.AfterFunc(s.keepAlive, s.ping)
}

// write sends frame and flushes it, then re-arms the keep-alive. Caller
// holds mu.
func (s *Writer) write(frame string) error {
	if s.err != nil {
		return s.err
	}
	if _, err := s.w.Write([]byte(frame)); err != nil {
		s.err = err
		return err
	}
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.err = err
		return err
	}
	s.timer.Reset(s.keepAlive)
	return nil
}

// ping is the keep-alive timer's function.
func (s *Writer) ping() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.err != nil {
		return
	}
	_ = s.write(keepAliveComment)
}
