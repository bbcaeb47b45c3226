package caddymodule

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/protocol"
)

// serveAudited runs a gateway call. While a wikigate_audit_file in the
// sync mode is open, the call's answer is held until the call's audit
// record has landed: the gateway writes the record when the call ends,
// after its answer, and with sync that write returns only once the
// record's batch is written and fsynced; the held answer goes out after
// it. A record that did not land (the batch failed, or did not land
// within the sync wait) turns the held answer into 503
// audit_unavailable: nothing is acknowledged that the file lacks. A
// stream's events still go out as they are flushed; its end (the last
// chunk) comes after the record, as the handler returns.
func serveAudited(next http.Handler, w http.ResponseWriter, r *http.Request) {
	if !audit.SyncFilesOpen() {
		next.ServeHTTP(w, r)
		return
	}
	ctx, landing := audit.WithLanding(r.Context())
	h := &heldResponse{ResponseWriter: w, buf: heldBuffers.Get().(*bytes.Buffer)}
	defer h.release(landing)
	next.ServeHTTP(h, r.WithContext(ctx))
}

var heldBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// heldResponse keeps the status and body written to it until release or
// a Flush.
type heldResponse struct {
	http.ResponseWriter
	buf    *bytes.Buffer
	status int  // held WriteHeader; 0: none yet
	sent   bool // the status went out (a Flush): the answer can no longer change
}

func (h *heldResponse) WriteHeader(status int) {
	if h.sent || h.status != 0 {
		return
	}
	if status < 200 { // 1xx informational responses are not the answer
		h.ResponseWriter.WriteHeader(status)
		return
	}
	h.status = status
}

func (h *heldResponse) Write(p []byte) (int, error) {
	if h.status == 0 && !h.sent {
		h.status = http.StatusOK
	}
	return h.buf.Write(p)
}

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
	if !h.sent && h.status != 0 {
		h.ResponseWriter.WriteHeader(h.status)
		h.sent = true
	}
	if h.buf.Len() == 0 {
		return nil
	}
	_, err := h.ResponseWriter.Write(h.buf.Bytes())
	h.buf.Reset()
	return err
}

func (h *heldResponse) release(landing *audit.Landing) {
	if err := landing.Err(); err != nil && !h.sent {
		h.buf.Reset()
		h.status = 0
		writeAuditUnavailable(h.ResponseWriter)
	} else {
		_ = h.send()
	}
	if h.buf.Cap() <= 64<<10 {
		heldBuffers.Put(h.buf)
	}
	h.buf = nil
}

// writeAuditUnavailable answers a call whose record did not land, in the
// protocol's error envelope. The held answer's headers that describe its
// body go; the others (request id, CORS, rate-limit headers) stay, so a
// docs page can read the refusal.
func writeAuditUnavailable(w http.ResponseWriter) {
	pe := protocol.NewError(protocol.CodeAuditUnavailable, "the call's audit record could not be written; nothing was acknowledged, retry later")
	hdr := w.Header()
	body, _ := json.Marshal(protocol.ErrorBody{Error: protocol.ErrorDetail{Code: pe.Code, Message: pe.Message, RequestID: hdr.Get("X-Request-Id")}})
	body = append(body, '\n')
	for _, k := range []string{"Content-Encoding", "Etag", "Last-Modified", "Content-Range", "Mcp-Session-Id"} {
		hdr.Del(k)
	}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	hdr.Set("Retry-After", "1")
	w.WriteHeader(pe.Status)
	_, _ = w.Write(body)
}
