package mcp

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/wikigate/wikigate/protocol"
)

// ErrClientClosed is what Gate.Call returns (wrapped) for a call whose
// client went away before it was answered: it sent
// notifications/cancelled, or hung up. Such a call gets no response (the
// MCP cancellation rule; nobody would read it after a hang-up), and the
// gate audits it as client_closed rather than as the backend failure the
// cut-short work looked like.
var ErrClientClosed = errors.New("the client cancelled the request or closed the connection")

// codeRateLimited is the JSON-RPC code of a call refused by a rate limit
// (HTTP 429), as -32001 and -32003 stand for 401 and 403.
const codeRateLimited = -32029

// limitRefusal is the 429 of a rate-limited call, with the HTTP route's
// Retry-After and RateLimit headers; nil for any other error.
func limitRefusal(err error) (*refusal, *errorData) {
	pe := protocol.AsError(err)
	if pe.Code != protocol.CodeRateLimited {
		return nil, nil
	}
	ref := refuse(http.StatusTooManyRequests, codeRateLimited, pe.Message)
	ref.header = pe.Header
	return ref, &errorData{Code: string(pe.Code)}
}

// inflight are the session calls the fast path is running, so that a
// notifications/cancelled naming one of them reaches it: the SDK never
// saw those requests and would ignore the notification.
type inflight struct{ m sync.Map }

func inflightKey(sessionID string, id jsontext.Value) string {
	return sessionID + "\x00" + string(id)
}

// track makes ctx cancellable by a notifications/cancelled on session
// sessionID naming id; done forgets it.
func (f *inflight) track(ctx context.Context, sessionID string, id jsontext.Value) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	key, entry := inflightKey(sessionID, id), &cancel // a pointer: funcs do not compare
	f.m.Store(key, entry)
	return ctx, func() {
		f.m.CompareAndDelete(key, entry)
		cancel()
	}
}

// cancel cancels the tracked call, if any; the notification still goes on
// to the SDK, which cancels its own request of that id.
func (f *inflight) cancel(sessionID string, id jsontext.Value) {
	if len(id) == 0 {
		return
	}
	if c, ok := f.m.Load(inflightKey(sessionID, id)); ok {
		(*c.(*context.CancelFunc))()
	}
}

// writeCancelled ends the HTTP response of a cancelled fast-path call
// without a JSON-RPC response: an event stream with no event, as the SDK
// ends a cancelled call's stream. After a hang-up nothing is written.
func writeCancelled(w http.ResponseWriter, r *http.Request) {
	if r.Context().Err() != nil {
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.WriteHeader(http.StatusOK)
}
