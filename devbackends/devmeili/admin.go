package devmeili

import (
	"net/http"
	"time"
)

func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "available"})
}

// handleVersion is where the server admits to being a stand-in.
func (s *Server) handleVersion(w http.ResponseWriter, _ *http.Request, _ credential) *apiError {
	writeJSON(w, http.StatusOK, orderedObject{
		{"commitSha", "unknown"}, {"commitDate", "unknown"}, {"pkgVersion", devVersion},
	})
	return nil
}

// apiKey is a key object of GET /keys.
type apiKey struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Key         string   `json:"key"`
	UID         string   `json:"uid"`
	Actions     []string `json:"actions"`
	Indexes     []string `json:"indexes"`
	ExpiresAt   *string  `json:"expiresAt"`
	CreatedAt   string   `json:"createdAt"`
	UpdatedAt   string   `json:"updatedAt"`
}

func (s *Server) handleKeys(w http.ResponseWriter, _ *http.Request, _ credential) *apiError {
	created := s.startedAt.Format(time.RFC3339)
	key := apiKey{
		Name:        "Default Search API Key",
		Description: "Use it to search from the frontend (wikigate development server)",
		Key:         s.searchKey, UID: s.searchUID,
		Actions: []string{"search"}, Indexes: []string{"*"},
		CreatedAt: created, UpdatedAt: created,
	}
	writeJSON(w, http.StatusOK, orderedObject{
		{"results", []apiKey{key}}, {"offset", 0}, {"limit", 20}, {"total", 1},
	})
	return nil
}

func (s *Server) handleGetIndex(w http.ResponseWriter, r *http.Request, _ credential) *apiError {
	ix, err := s.lookupIndex(r.PathValue("uid"))
	if err != nil {
		return err
	}
	at := ix.createdAt.Format(time.RFC3339)
	writeJSON(w, http.StatusOK, orderedObject{
		{"uid", ix.uid}, {"createdAt", at}, {"updatedAt", at}, {"primaryKey", "id"},
	})
	return nil
}

func (s *Server) handleDevRequests(w http.ResponseWriter, _ *http.Request, _ credential) *apiError {
	writeJSON(w, http.StatusOK, map[string][]LoggedRequest{"requests": s.log.Snapshot()})
	return nil
}

func (s *Server) handleDevClear(w http.ResponseWriter, _ *http.Request, _ credential) *apiError {
	s.log.Clear()
	w.WriteHeader(http.StatusNoContent)
	return nil
}
