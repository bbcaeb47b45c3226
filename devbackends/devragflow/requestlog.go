package devragflow

import (
	"net/http"
	"time"
)

// LoggedRequest is what the request log keeps of one request: never the
// key, the question or the prompt.
type LoggedRequest struct {
	Time       time.Time `json:"time"`
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	Authorized bool      `json:"authorized"`
	// DatasetIDs are the dataset ids the request named (retrieval's
	// dataset_ids, or the dataset of a documents listing).
	DatasetIDs []string `json:"datasetIds,omitempty"`
	// Status is the HTTP status; Code the envelope code (0 when the body
	// has none, e.g. healthz).
	Status int `json:"status"`
	Code   int `json:"code"`
	// Cancelled marks a streamed completion whose client went away before
	// its last event: the caller (the gate, when its own reader hung up)
	// cancelled the generation, and the rest of the answer was never made.
	Cancelled bool `json:"cancelled,omitempty"`
	// Traceparent is the request's W3C traceparent header, so a test can
	// see a caller's trace reach RAGFlow through the gate.
	Traceparent string `json:"traceparent,omitempty"`
}

// Requests returns the logged requests, oldest first.
func (s *Server) Requests() []LoggedRequest { return s.log.Snapshot() }

// handleDevRequests serves GET (list) and DELETE (clear) /_dev/requests.
// These calls are not logged themselves, so the log shows only the traffic
// under test.
func (s *Server) handleDevRequests(w http.ResponseWriter, r *http.Request, _ *LoggedRequest) {
	if r.Method == http.MethodDelete {
		s.log.Clear()
		writeJSON(w, http.StatusOK, map[string]any{"requests": []LoggedRequest{}})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"requests": s.log.Snapshot()})
}
