package mcp

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wikigate/wikigate/protocol"
)

// JSON-RPC error codes this package answers with before the SDK sees a
// message. headerMismatch is the SDK's (and SEP-2243's) code, so clients
// see the same code whichever layer refused.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInternal       = -32603
	codeHeaderMismatch = -32020
	codeUnauthorized   = -32001
	codeForbidden      = -32003
)

// Header names of the Streamable HTTP transport.
const (
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerSessionID       = "Mcp-Session-Id"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
)

// Other request headers the front reads on every POST, spelled as
// net/http stores them (canonical: Last-Event-Id, not Last-Event-ID).
const (
	headerOrigin      = "Origin"
	headerContentType = "Content-Type"
	headerAccept      = "Accept"
	headerLastEventID = "Last-Event-Id"
)

// headerGet and headerValues read a request header by its canonical name
// straight from the map: Header.Get and Header.Values canonicalize the
// name on every call, and the front reads about fifteen headers a request
// (~1 us of the fast path's profile). Every name passed is one of the
// constants above, which TestHeaderNamesAreCanonical keeps canonical, and
// net/http canonicalizes the names of the headers it receives.
func headerGet(h http.Header, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func headerValues(h http.Header, name string) []string { return h[name] }

// revisionStateless is the first revision without sessions (SEP-2575).
const revisionStateless = "2026-07-28"

// metaProtocolVersion is the _meta key a stateless request names its
// revision with.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// message is the one JSON-RPC message of a POST, as far as routing and the
// header checks need it.
type message struct {
	Method      string
	ID          jsontext.Value // nil for notifications and responses
	Name        string         // params.name (tools/call, prompts/get) or params.uri (resources/read)
	MetaVersion string         // params._meta protocol version (stateless requests)
	CancelID    jsontext.Value // params.requestId of notifications/cancelled
	fast        *fastRequest   // the message as the fast path reads it (decodeFast); nil if it does not

	// TraceParent and TraceState are the W3C trace context in params._meta
	// (SEP-414), "" when none (mcp/trace.go).
	TraceParent, TraceState string
}

// envelope is a JSON-RPC 2.0 message; unknown members are refused so that
// no member can mean one thing here and another to the SDK's decoder.
type envelope struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      jsontext.Value `json:"id,omitzero"`
	Method  *string        `json:"method,omitzero"`
	Params  jsontext.Value `json:"params,omitzero"`
	Result  jsontext.Value `json:"result,omitzero"`
	Error   jsontext.Value `json:"error,omitzero"`
}

// refusal is an HTTP answer given before the SDK or the gate is involved.
type refusal struct {
	status  int
	code    int
	message string
	id      jsontext.Value
	header  http.Header // further response headers (a 429's rate-limit fields)
}

func refuse(status, code int, msg string) *refusal {
	return &refusal{status: status, code: code, message: msg}
}

// readMessage reads and checks the body of a POST: JSON, one message (the
// SDK would still take a batch from a client that names no revision), a
// JSON-RPC 2.0 shape, no duplicate or look-alike members, and Mcp-Method /
// Mcp-Name headers that say what the body says. The body is put back for
// the SDK.
func readMessage(r *http.Request, limit int64) (*message, *refusal) {
	if !isJSONContentType(headerGet(r.Header, headerContentType)) {
		return nil, refuse(http.StatusUnsupportedMediaType, codeInvalidRequest, "Content-Type must be application/json")
	}
	if protocol.Compressed(headerGet(r.Header, "Content-Encoding")) {
		return nil, refuse(http.StatusUnsupportedMediaType, codeInvalidRequest, "messages are read uncompressed; send the body without a Content-Encoding")
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, refuse(http.StatusRequestEntityTooLarge, codeInvalidRequest, "message is too large")
		}
		return nil, refuse(http.StatusBadRequest, codeParseError, "cannot read the body")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	msg, ref := decodeOnce(r.Header, body)
	if ref != nil {
		return nil, ref
	}
	if ref := checkHeaders(r.Header, msg); ref != nil {
		ref.id = msg.ID
		return nil, ref
	}
	return msg, nil
}

// isJSONContentType reports a Content-Type of application/json, with or
// without parameters. The exact value (what clients send) is recognized
// without mime.ParseMediaType, which allocates on every request.
func isJSONContentType(ct string) bool {
	if ct == "application/json" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// decodeOnce reads body once. A request that says it is a stateless
// tools/call or tools/list, or that names a 2025-* session, is first read
// by the fast paths' strict decoder:
// whatever that accepts, parseMessage accepts too and reads the same way
// (TestFastDecodeReadsWhatParseMessageReads), so it is not read a second
// and third time. Anything else is read by parseMessage, which refuses
// what must be refused.
func decodeOnce(h http.Header, body []byte) (*message, *refusal) {
	switch {
	case headerGet(h, headerProtocolVersion) == revisionStateless && fastMethods[headerGet(h, headerMethod)]:
		if req, ok := decodeFast(body); ok {
			return req.message(), nil
		}
	case headerGet(h, headerSessionID) != "" && headerGet(h, headerProtocolVersion) < revisionStateless:
		if req, ok := decodeSessionCall(body); ok {
			return req.message(), nil
		}
	}
	return parseMessage(body)
}

func parseMessage(body []byte) (*message, *refusal) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, refuse(http.StatusBadRequest, codeInvalidRequest, "JSON-RPC batches are not accepted: send one message per request")
	}
	if ref := checkMembers(body, envelopeMembers, "the message", codeInvalidRequest); ref != nil {
		return nil, ref
	}
	var env envelope
	if err := json.Unmarshal(body, &env, json.RejectUnknownMembers(true)); err != nil {
		return nil, refuse(http.StatusBadRequest, codeParseError, "body is not one JSON-RPC message")
	}
	if env.JSONRPC != "2.0" {
		return nil, refuse(http.StatusBadRequest, codeInvalidRequest, `jsonrpc must be "2.0"`)
	}
	if env.ID != nil && env.ID.Kind() != '"' && env.ID.Kind() != '0' {
		return nil, refuse(http.StatusBadRequest, codeInvalidRequest, "id must be a string or a number")
	}
	msg := &message{ID: env.ID}
	if env.Method == nil {
		if env.ID == nil || (env.Result == nil) == (env.Error == nil) {
			return nil, refuse(http.StatusBadRequest, codeInvalidRequest, "message is neither a request, a notification nor a response")
		}
		return msg, nil
	}
	msg.Method = *env.Method
	if msg.Method == "" {
		return nil, refuse(http.StatusBadRequest, codeInvalidRequest, "method must not be empty")
	}
	if env.Params != nil {
		if allowed := paramMembers[msg.Method]; allowed != nil {
			if ref := checkMembers(env.Params, allowed, "params", codeInvalidParams); ref != nil {
				ref.id = msg.ID
				return nil, ref
			}
		}
		if err := readParams(env.Params, msg); err != nil {
			return nil, refuse(http.StatusBadRequest, codeInvalidRequest, err.Error())
		}
	}
	return msg, nil
}

// params holds the members of params that routing reads. Members whose
// names differ from these only in case are refused: a decoder that matches
// names case-insensitively would read them instead.
type params struct {
	Name      *string                   `json:"name"`
	URI       *string                   `json:"uri"`
	Meta      map[string]jsontext.Value `json:"_meta"`
	RequestID jsontext.Value            `json:"requestId"` // notifications/cancelled
}

func readParams(raw jsontext.Value, msg *message) error {
	var members map[string]jsontext.Value
	if err := json.Unmarshal(raw, &members); err != nil {
		return errors.New("params must be an object without duplicate members")
	}
	for k := range members {
		for _, want := range [...]string{"name", "uri", "_meta", "requestId"} {
			if k != want && strings.EqualFold(k, want) {
				return errors.New("params has a member named like " + want)
			}
		}
	}
	var p params
	if err := json.Unmarshal(raw, &p); err != nil {
		return errors.New("params.name, params.uri or params._meta has the wrong type")
	}
	switch {
	case msg.Method == "resources/read" && p.URI != nil:
		msg.Name = *p.URI
	case msg.Method != "resources/read" && p.Name != nil:
		msg.Name = *p.Name
	}
	if msg.Method == "notifications/cancelled" {
		msg.CancelID = p.RequestID
	}
	msg.TraceParent, msg.TraceState = metaString(p.Meta, "traceparent"), metaString(p.Meta, "tracestate")
	if v, ok := p.Meta[metaProtocolVersion]; ok {
		if err := json.Unmarshal(v, &msg.MetaVersion); err != nil {
			return errors.New("params._meta protocol version must be a string")
		}
	}
	return nil
}

// namedMethods are the methods whose target travels in Mcp-Name.
var namedMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// checkHeaders refuses Mcp-Method and Mcp-Name headers that disagree with
// the body, on every revision: an intermediary that routes or authorizes on
// the headers must see what the gate will execute. (The SDK checks them only
// when the request names 2026-07-28; it also requires them there.)
func checkHeaders(h http.Header, msg *message) *refusal {
	if ref := checkHeader(h, headerMethod, msg.Method, msg.Method != ""); ref != nil {
		return ref
	}
	return checkHeader(h, headerName, msg.Name, namedMethods[msg.Method])
}

func checkHeader(h http.Header, name, body string, applies bool) *refusal {
	values := headerValues(h, name)
	switch {
	case len(values) == 0:
		return nil
	case len(values) > 1:
		return refuse(http.StatusBadRequest, codeHeaderMismatch, name+" header is repeated")
	case !applies || values[0] != body:
		return refuse(http.StatusBadRequest, codeHeaderMismatch, name+" header does not match the body")
	}
	return nil
}

// stateless reports whether the message follows the 2026-07-28 revision:
// it says so in its protocol version header or in params._meta.
func (m *message) stateless(h http.Header) bool {
	return headerGet(h, headerProtocolVersion) >= revisionStateless || m.MetaVersion != ""
}
