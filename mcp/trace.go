package mcp

import (
	"context"
	"net/http"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// MessageTracer is a Gate that traces the MCP requests it does not see as
// tool calls: initialize, tools/list, resources/read and the others
// (docs/operators.md, Tracing). The gateway's gate is one; a tools/call is
// traced by Gate.Call itself, with its stages.
type MessageTracer interface {
	// TraceMessage returns r under the request's span, and the function
	// that ends it with the session the request opened or ran in (nil:
	// not traced).
	TraceMessage(r *http.Request, m TracedMessage) (*http.Request, func(sessionID string))
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

// traceMessage starts the span of a request other than tools/call when
// the gate traces; notifications and responses get none. A tools/call
// whose _meta holds a trace context gets it on r (MessageTraceContext),
// for Gate.Call's span: CallMeta.HTTP is that request.
func (h *Handler) traceMessage(r *http.Request, msg *message) (*http.Request, func(string)) {
	t, ok := h.gate.(MessageTracer)
	if !ok || msg.ID == nil || msg.Method == "" {
		return r, nil
	}
	if msg.Method == "tools/call" {
		if msg.TraceParent != "" {
			r = r.WithContext(context.WithValue(r.Context(), traceContextKey{}, [2]string{msg.TraceParent, msg.TraceState}))
		}
		return r, nil
	}
	rev := headerGet(r.Header, headerProtocolVersion)
	if rev == "" {
		rev = msg.MetaVersion
	}
	return t.TraceMessage(r, TracedMessage{Method: msg.Method, Target: msg.Name, RequestID: string(msg.ID),
		SessionID: headerGet(r.Header, headerSessionID), Revision: rev, TraceParent: msg.TraceParent, TraceState: msg.TraceState})
}

// endTrace ends a request's span (traceMessage) with the exchange's session.
func endTrace(end func(string), ex *exchange) {
	if end == nil {
		return
	}
	id := ""
	if ex.session != nil {
		id = ex.session.id
	}
	end(id)
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
