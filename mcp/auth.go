package mcp

import (
	"net/http"
	"strings"

	"github.com/wikigate/wikigate/protocol"
)

// authenticate asks the gate who sent r. On failure it writes the OAuth
// protected-resource challenge (MCP authorization, RFC 9728 §5.1): 401 with
// WWW-Authenticate naming the metadata document, so a client can find the
// authorization server without configuration.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request, ref *refusal) (Caller, bool) {
	c, err := h.gate.Authenticate(r)
	if err == nil {
		return c, true
	}
	pe := protocol.AsError(err)
	if pe.Code != protocol.CodeUnauthorized {
		ref.status, ref.code, ref.message = pe.Status, codeInternal, pe.Message
		writeRefusal(w, ref, &errorData{Code: string(pe.Code)})
		return Caller{}, false
	}
	w.Header().Set("WWW-Authenticate", h.challenge(r, hasCredential(r)))
	ref.status, ref.code, ref.message = http.StatusUnauthorized, codeUnauthorized, pe.Message
	writeRefusal(w, ref, &errorData{Code: string(pe.Code)})
	return Caller{}, false
}

// hasCredential tells a missing credential from a refused one: RFC 6750 §3.1
// says to add error="invalid_token" only when a token was presented.
func hasCredential(r *http.Request) bool {
	return r.Header.Get("Authorization") != "" || r.Header.Get("X-Agent-Api-Key") != ""
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
