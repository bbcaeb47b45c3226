package mcp

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// MessageTracer is a Gate that traces the MCP requests: one server span
// per request with an id (docs/operators.md, Tracing), tools/call
// included, whose Gate.Call writes its stages on that span. The gateway's
// gate is one.
type MessageTracer interface {
	// TraceMessage returns r under the request's span, and the function
	// that ends it with how the request ended (nil: not traced).
	TraceMessage(r *http.Request, m TracedMessage) (*http.Request, func(MessageEnd))
}

// MessageEnd is how a traced request ended: the session it opened or ran
// in, and how its client was answered. The zero outcome is a success.
type MessageEnd struct {
	SessionID string
	// RPCCode and Message are the JSON-RPC error the client was sent
	// (RPCCode 0: none).
	RPCCode int
	Message string
	// ToolError is a tools/call answered with a result with isError;
	// Message is then the result's text (the protocol code and message).
	ToolError bool
}

// TracedMessage is what a request's span records of it.
type TracedMessage struct {
	Method    string
	Target    string // params.name (prompts/get) or params.uri (resources/read)
	RequestID string // the JSON-RPC id as sent
	SessionID string // the Mcp-Session-Id it names, "" for initialize
	Revision  string // the protocol revision it names, if any
	// TraceParent and TraceState are the W3C trace context the client
	// sent in params._meta (SEP-414), "" when none.
	TraceParent, TraceState string
}

// traceMessage starts the span of a request when the gate traces;
// notifications and responses get none. A tools/call whose _meta holds a
// trace context also gets it on r (MessageTraceContext), for Gate.Call:
// CallMeta.HTTP is that request. w comes back as the traceWriter that
// notes the JSON-RPC error the client is sent, when traced.
func (h *Handler) traceMessage(w http.ResponseWriter, r *http.Request, msg *message) (http.ResponseWriter, *http.Request, *traceWriter) {
	t, ok := h.gate.(MessageTracer)
	if !ok || msg.ID == nil || msg.Method == "" {
		return w, r, nil
	}
	if msg.Method == "tools/call" && msg.TraceParent != "" {
		r = r.WithContext(context.WithValue(r.Context(), traceContextKey{}, [2]string{msg.TraceParent, msg.TraceState}))
	}
	rev := headerGet(r.Header, headerProtocolVersion)
	if rev == "" {
		rev = msg.MetaVersion
	}
	r, end := t.TraceMessage(r, TracedMessage{Method: msg.Method, Target: spanTarget(msg.Method, msg.Name), RequestID: string(msg.ID),
		SessionID: headerGet(r.Header, headerSessionID), Revision: rev, TraceParent: msg.TraceParent, TraceState: msg.TraceState})
	if end == nil {
		return w, r, nil
	}
	tw := &traceWriter{ResponseWriter: w, end: end}
	return tw, r, tw
}

// spanTarget is the target a request's span is named by: a tools/call's
// tool only when the gate serves one of that name, so that a client
// cannot mint span names.
func spanTarget(method, name string) string {
	if method == "tools/call" && toolIndex[name] == nil {
		return ""
	}
	return name
}

// traceRefused makes the span of a request refused before its message was
// read (a bad credential, a message that does not parse), when the gate
// traces: named by its Mcp-Method and Mcp-Name headers (the 2026-07-28
// revision sends them; without, the span has no method), ended at once
// with the refusal.
func (h *Handler) traceRefused(r *http.Request, ref *refusal) {
	t, ok := h.gate.(MessageTracer)
	if !ok {
		return
	}
	method := headerGet(r.Header, headerMethod)
	_, end := t.TraceMessage(r, TracedMessage{Method: method, Target: spanTarget(method, headerGet(r.Header, headerName)),
		RequestID: string(ref.id), SessionID: headerGet(r.Header, headerSessionID), Revision: headerGet(r.Header, headerProtocolVersion)})
	if end != nil {
		end(MessageEnd{SessionID: headerGet(r.Header, headerSessionID), RPCCode: ref.code, Message: ref.message})
	}
}

// endTrace ends a request's span (traceMessage) with the exchange's
// session and the answer its client was sent.
func endTrace(tw *traceWriter, ex *exchange) {
	if tw == nil {
		return
	}
	end := tw.outcome()
	if ex.session != nil {
		end.SessionID = ex.session.id
	}
	tw.end(end)
}

// toolFailed notes, for the request's span, that a tools/call was answered
// with an isError result for err.
func (ex *exchange) toolFailed(err error) {
	if ex.trace == nil {
		return
	}
	_, text := errorParts(err)
	ex.trace.mu.Lock()
	ex.trace.toolError, ex.trace.toolText = true, text
	ex.trace.mu.Unlock()
}

// traceWriter is the ResponseWriter of a traced request: it keeps the
// start of the body (traceSniff bytes), where the JSON-RPC error the
// client is sent is, whichever layer wrote it (the front's refusals, the
// fast paths, the SDK), so that the request's span records what the
// client read. Untraced requests do not have one.
type traceWriter struct {
	http.ResponseWriter
	end func(MessageEnd)

	mu        sync.Mutex
	head      []byte
	toolError bool
	toolText  string
}

// traceSniff bounds what a traceWriter keeps: an error response is a
// short JSON-RPC message, which comes first on its stream (after the
// priming event at most).
const traceSniff = 4096

func (t *traceWriter) Write(b []byte) (int, error) {
	t.mu.Lock()
	if room := traceSniff - len(t.head); room > 0 {
		t.head = append(t.head, b[:min(room, len(b))]...)
	}
	t.mu.Unlock()
	return t.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer (the
// SDK's flushes).
func (t *traceWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// outcome is how the client was answered: the JSON-RPC error it was sent,
// else the isError result of a tools/call, else a success.
func (t *traceWriter) outcome() MessageEnd {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := rpcErrorIn(t.head, t.Header().Get("Content-Type")); e != nil {
		return MessageEnd{RPCCode: e.Code, Message: e.Message}
	}
	if t.toolError {
		return MessageEnd{ToolError: true, Message: t.toolText}
	}
	return MessageEnd{}
}

// rpcErrorIn is the JSON-RPC error of a response body (JSON, or the data
// of an SSE stream's events), nil when it is none.
func rpcErrorIn(body []byte, contentType string) *rpcErrorBody {
	if !strings.HasPrefix(contentType, "text/event-stream") {
		return decodeRPCError(body)
	}
	for line := range bytes.Lines(body) {
		if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if e := decodeRPCError(bytes.TrimSpace(data)); e != nil {
				return e
			}
		}
	}
	return nil
}

func decodeRPCError(b []byte) *rpcErrorBody {
	var resp struct {
		Error *rpcErrorBody `json:"error"`
	}
	if json.Unmarshal(b, &resp) != nil {
		return nil
	}
	return resp.Error
}

// metaString is the string member key of a request's params._meta, or ""
// when it is missing or not a string: a malformed trace context is
// ignored, never refused.
func metaString(meta map[string]jsontext.Value, key string) string {
	var s string
	if v, ok := meta[key]; ok && v.Kind() == '"' && json.Unmarshal(v, &s) == nil {
		return s
	}
	return ""
}

type traceContextKey struct{}

// MessageTraceContext is the traceparent and tracestate a tools/call's
// params._meta held, read from the request that carried it
// (CallMeta.HTTP); "" when none.
func MessageTraceContext(r *http.Request) (traceparent, tracestate string) {
	if r == nil {
		return "", ""
	}
	v, _ := r.Context().Value(traceContextKey{}).([2]string)
	return v[0], v[1]
}
