package mcp

import (
	"net/http"
	"strings"

	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/protocol"
)

// authenticate asks the gate who sent r. It runs before a byte of the body
// is read (servePOST), as on the HTTP tool routes: a refused caller gets no
// 100 Continue and cannot hold the connection with a slow body. On failure
// it writes the OAuth protected-resource challenge (MCP authorization, RFC
// 9728 §5.1): 401 with WWW-Authenticate naming the metadata document, so a
// client can find the authorization server without configuration.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request, ref *refusal) (Caller, bool) {
	c, err := h.gate.Authenticate(r)
	if err == nil {
		return c, true
	}
	closeUnreadBody(w, r)
	pe := protocol.AsError(err)
	if pe.Code != protocol.CodeUnauthorized {
		ref.status, ref.code, ref.message = pe.Status, codeInternal, pe.Message
		writeRefusal(w, ref, &errorData{Code: string(pe.Code)})
		return Caller{}, false
	}
	// RFC 6750 §3.1: error="invalid_token" only when a credential was
	// presented; identity.PresentsCredential is the gate's own reading.
	w.Header().Set("WWW-Authenticate", h.challenge(r, identity.PresentsCredential(r)))
	ref.status, ref.code, ref.message = http.StatusUnauthorized, codeUnauthorized, pe.Message
	writeRefusal(w, ref, &errorData{Code: string(pe.Code)})
	return Caller{}, false
}

// closeUnreadBody ends the connection after a refusal written before the
// body was read, as the HTTP tool routes do: net/http would otherwise read
// the rest of the body to reuse the connection, so a slow body would hold
// the answer back.
func closeUnreadBody(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
	}
}

// challenge is the WWW-Authenticate value of a 401.
func (h *Handler) challenge(r *http.Request, presented bool) string {
	params := []string{`resource_metadata="` + h.metadataURL(r) + `"`}
	if len(h.cfg.Scopes) > 0 {
		params = append(params, `scope="`+strings.Join(h.cfg.Scopes, " ")+`"`)
	}
	if presented {
		params = append(params, `error="invalid_token"`)
	}
	return "Bearer " + strings.Join(params, ", ")
}
