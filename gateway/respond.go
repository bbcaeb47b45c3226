package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/protocol"
)

// validRequestID accepts a caller's X-Request-Id for the audit record only
// if it is short and plain, so it is safe to write into logs.
var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// requestID is the gate's own id for a call: always minted here, so no
// caller can make two audit records share an id.
func requestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// clientRequestID is the caller's X-Request-Id when it is well-formed; it is
// recorded beside the gate's id so callers can correlate their own traces.
func clientRequestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); validRequestID.MatchString(id) {
		return id
	}
	return ""
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// writeOK writes a tool's result: JSON, or bytes a handler rendered itself
// (an idempotent replay must be byte-identical to the first response).
func writeOK(w http.ResponseWriter, out any) {
	raw, ok := out.(rawJSON)
	if !ok {
		writeJSON(w, http.StatusOK, out)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(raw)
}

// rawJSON is a response body already rendered by its handler.
type rawJSON []byte

// writeError writes the protocol's error envelope.
func writeError(w http.ResponseWriter, reqID string, e *protocol.Error) {
	if e.Code == protocol.CodeMethodNotAllowed {
		w.Header().Set("Allow", http.MethodPost)
	}
	if e.Code == protocol.CodeUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="wikigate"`)
	}
	copyHeader(w.Header(), e.Header)
	writeJSON(w, e.Status, protocol.ErrorBody{Error: protocol.ErrorDetail{Code: e.Code, Message: e.Message, RequestID: reqID}})
}

func zapRequestID(id string) zap.Field { return zap.String("request_id", id) }
func zapError(err error) zap.Field     { return zap.Error(err) }
