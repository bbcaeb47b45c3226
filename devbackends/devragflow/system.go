package devragflow

import (
	"io"
	"net/http"
)

// handleHealthz is GET /api/v1/system/healthz: raw JSON, not an envelope.
// The stand-in has no dependencies, so every check is "ok".
func (s *Server) handleHealthz(w http.ResponseWriter, _ *http.Request, _ *LoggedRequest) {
	writeJSON(w, http.StatusOK, map[string]any{
		"db": "ok", "redis": "ok", "doc_engine": "ok", "storage": "ok", "status": "ok"})
}

// handlePing is GET /api/v1/system/ping; Quart serves a returned str as
// text/html.
func (s *Server) handlePing(w http.ResponseWriter, _ *http.Request, _ *LoggedRequest) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "pong")
}

// handleVersion is GET /api/v1/system/version; the "-wikigate-dev" suffix
// tells anyone reading it that this is the stand-in.
func (s *Server) handleVersion(w http.ResponseWriter, _ *http.Request, rec *LoggedRequest) {
	s.reply(w, rec, http.StatusOK, jsonResult(codeSuccess, "success", Version))
}
