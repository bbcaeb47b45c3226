package caddymodule

import (
	"bytes"
	"net/http"
	"sync"

	"github.com/wikigate/wikigate/audit"
)

// serveAudited runs a gateway call. While a wikigate_audit_file in the
// sync mode is open, the call's answer is held until the call's audit
// record has landed: the gateway writes the record when the call ends,
// after its answer, and with sync that write returns only once the
// record's batch is written and fsynced; the held answer goes out after
// it. A stream's events still go out as they are flushed; its end (the
// last chunk) comes after the record, as the handler returns.
func serveAudited(next http.Handler, w http.ResponseWriter, r *http.Request) {
	if !audit.SyncFilesOpen() {
		next.ServeHTTP(w, r)
		return
	}
	h := &heldResponse{ResponseWriter: w, buf: heldBuffers.Get().(*bytes.Buffer)}
	defer h.release()
	next.ServeHTTP(h, r)
}

var heldBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// heldResponse keeps the body written to it until release or a Flush.
type heldResponse struct {
	http.ResponseWriter
	buf *bytes.Buffer
}

func (h *heldResponse) Write(p []byte) (int, error) { return h.buf.Write(p) }

// Flush sends what is held and flushes it (an event stream's events).
func (h *heldResponse) Flush() { _ = h.FlushError() }

// FlushError is Flush for http.ResponseController.
func (h *heldResponse) FlushError() error {
	if err := h.send(); err != nil {
		return err
	}
	return http.NewResponseController(h.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection (deadlines).
func (h *heldResponse) Unwrap() http.ResponseWriter { return h.ResponseWriter }

func (h *heldResponse) send() error {
	if h.buf.Len() == 0 {
		return nil
	}
	_, err := h.ResponseWriter.Write(h.buf.Bytes())
	h.buf.Reset()
	return err
}

func (h *heldResponse) release() {
	_ = h.send()
	if h.buf.Cap() <= 64<<10 {
		heldBuffers.Put(h.buf)
	}
	h.buf = nil
}
