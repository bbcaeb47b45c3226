package devragflow

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// authorized checks the API key as G2's login_required does: a
// case-insensitive "Bearer " prefix, or the whole header tried as a raw
// token. A missing header and a wrong key both fail (HTTP 401).
func (s *Server) authorized(r *http.Request) bool {
	header := strings.TrimSpace(r.Header.Get("Authorization"))
	if header == "" {
		return false
	}
	token := header
	if len(header) > len("bearer ") && strings.EqualFold(header[:len("bearer ")], "bearer ") {
		token = strings.TrimSpace(header[len("bearer "):])
	}
	return sameSecret(token, s.cfg.APIKey)
}

// sameSecret compares in constant time; hashing first hides the length.
func sameSecret(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}
