package backend

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// RAGFlowEnvelope is RAGFlow's response wrapper {code, message, data}
// (docs/backends.md, RAGFlow wire details: Envelope). Code is a pointer so
// that a body without one is told from a success.
type RAGFlowEnvelope struct {
	Code    *int            `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// RAGFlowHead is what CheckRAGFlow reads of an envelope, however it was
// decoded: the code (nil when absent), the message and the kind of its data
// ('t' for true, 'f' for false, '{' for an object, 0 when there is none).
type RAGFlowHead struct {
	Code     *int
	Message  string
	DataKind jsontext.Kind
}

// Head is what CheckRAGFlow reads of e.
func (e *RAGFlowEnvelope) Head() RAGFlowHead {
	return RAGFlowHead{Code: e.Code, Message: e.Message, DataKind: rawKind(e.Data)}
}

// G1AuthFailure recognises v0.24's missing or malformed key answers: HTTP
// 200, code 0, data false, a message about Authorization (docs/backends.md,
// RAGFlow wire details: Authentication).
func (h RAGFlowHead) G1AuthFailure() bool {
	return h.DataKind == 'f' && strings.Contains(strings.ToLower(h.Message), "authorization")
}

// RAGFlowRefusal is why an answer is not a successful envelope. The caller
// turns it into its own error: the gate's cleans Message for its log, the
// loader's keeps it for its report.
type RAGFlowRefusal struct {
	// Kind is Rejected (the backend said no) or BadResponse (the body is
	// not an envelope).
	Kind ErrorKind
	// HTTPStatus is the answer's status, for a Rejected answer; 0 for a
	// BadResponse.
	HTTPStatus int
	// Code and Message are the envelope's, when it had a code (Code may be
	// 0 then: a non-2xx status or G1's auth failure); Message is as sent.
	Code    int
	Message string
	// Why says what was wrong beyond the code: for a BadResponse "html
	// body", "invalid json" or "no envelope code"; for G1's code-0 auth
	// failure "authentication failed"; "" otherwise.
	Why string
}

// The refusals' Why.
const (
	WhyHTML       = "html body"
	WhyNotJSON    = "invalid json"
	WhyNoCode     = "no envelope code"
	WhyAuthFailed = "authentication failed"
)

// DecodeRAGFlow reads body, an answer with the given status and header, as
// an envelope and checks it (CheckRAGFlow); the envelope is nil when the
// refusal is not.
func DecodeRAGFlow(status int, header http.Header, body []byte) (*RAGFlowEnvelope, *RAGFlowRefusal) {
	var env RAGFlowEnvelope
	decoded := json.Unmarshal(body, &env) == nil
	if r := CheckRAGFlow(status, header, body, env.Head(), decoded); r != nil {
		return nil, r
	}
	return &env, nil
}

// CheckRAGFlow turns every failure form of docs/backends.md, RAGFlow wire
// details (Authentication, Envelope) into a refusal, nil for a success: a
// non-2xx status, HTML (a proxy's error page served with 200), a body that
// did not decode as an envelope (decoded false), a missing code, code != 0,
// and G1's code-0 "data: false" auth failures. h is what was decoded of
// body.
func CheckRAGFlow(status int, header http.Header, body []byte, h RAGFlowHead, decoded bool) *RAGFlowRefusal {
	if status < 200 || status > 299 {
		r := &RAGFlowRefusal{Kind: Rejected, HTTPStatus: status}
		if decoded && h.Code != nil {
			r.Code, r.Message = *h.Code, h.Message
		}
		return r
	}
	switch {
	case IsHTML(header, body):
		return &RAGFlowRefusal{Kind: BadResponse, Why: WhyHTML}
	case !decoded:
		return &RAGFlowRefusal{Kind: BadResponse, Why: WhyNotJSON}
	case h.Code == nil:
		return &RAGFlowRefusal{Kind: BadResponse, Why: WhyNoCode}
	case *h.Code != 0:
		return &RAGFlowRefusal{Kind: Rejected, HTTPStatus: status, Code: *h.Code, Message: h.Message}
	case h.G1AuthFailure():
		return &RAGFlowRefusal{Kind: Rejected, HTTPStatus: status, Message: h.Message, Why: WhyAuthFailed}
	}
	return nil
}

// IsHTML catches proxies' and servers' error pages: a text/html type, or a
// body that starts with '<'.
func IsHTML(header http.Header, body []byte) bool {
	if mt, _, err := mime.ParseMediaType(header.Get("Content-Type")); err == nil && mt == "text/html" {
		return true
	}
	return bytes.HasPrefix(bytes.TrimSpace(body), []byte("<"))
}

// rawKind is the kind of a raw JSON value ('t', 'f', '{', ...), 0 for none.
func rawKind(raw json.RawMessage) jsontext.Kind {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return 0
	case string(raw) == "true":
		return 't'
	case string(raw) == "false":
		return 'f'
	}
	return jsontext.Value(raw).Kind()
}
