package devmeili

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"
)

// Credential kinds, as recorded in the request log. A credential that fails
// verification is "invalid"; a valid one keeps its kind even when the route
// or index then refuses it (the status code says so).
const (
	authMaster  = "master"
	authAPIKey  = "api_key"
	authTenant  = "tenant_token"
	authNone    = "none"
	authInvalid = "invalid"
)

// action is what a route requires (docs/backends.md, Meilisearch wire
// details: Authorization). Only the default search key exists besides the
// master key, so every non-search route is master-only here.
type action int

const (
	actionSearch action = iota
	actionMasterOnly
)

// credential is an authenticated caller.
type credential struct {
	kind string
	// tenantFilter is the searchRules filter of a tenant token for the
	// requested index (nil: none); it is ANDed with the request filter.
	tenantFilter any
}

// deriveKey computes an API key value from its uid as the engine does:
// lowercase hex of HMAC-SHA256(master key, uid).
func deriveKey(masterKey, uid string) string {
	mac := hmac.New(sha256.New, []byte(masterKey))
	mac.Write([]byte(uid))
	return hex.EncodeToString(mac.Sum(nil))
}

// SearchKeyFor is the uid and value of the development server's search-only
// key ("Default Search API Key", actions ["search"]) under masterKey, as
// GET /keys lists it. The default Caddyfile gives the gate this key, never
// the master key; `wikigate` computes it for WIKIGATE_MEILI_SEARCH_KEY(_UID)
// so the two stay in step without a call.
func SearchKeyFor(masterKey string) (uid, key string) {
	return searchKeyUID, deriveKey(masterKey, searchKeyUID)
}

func equalSecret(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// authenticate checks the bearer credential of r for act on index uid. The
// header parsing follows the engine: the scheme must be exactly "Bearer";
// only search routes consider tenant tokens.
func (s *Server) authenticate(r *http.Request, act action, uid string) (credential, *apiError) {
	values := r.Header.Values("Authorization")
	if len(values) == 0 {
		return credential{kind: authNone}, errMissingAuthorization()
	}
	scheme, token, _ := strings.Cut(values[0], " ")
	if scheme != "Bearer" {
		return credential{kind: authInvalid}, errMissingAuthorization()
	}
	switch {
	case token == "":
		return credential{kind: authInvalid}, errInvalidAPIKey()
	case equalSecret(token, s.masterKey):
		return credential{kind: authMaster}, nil
	case equalSecret(token, s.searchKey):
		if act != actionSearch {
			return credential{kind: authAPIKey}, errInvalidAPIKey()
		}
		return credential{kind: authAPIKey}, nil
	case act == actionSearch && looksLikeJWT(token):
		return s.authenticateTenantToken(token, uid)
	}
	return credential{kind: authInvalid}, errInvalidAPIKey()
}

func (s *Server) authenticateTenantToken(token, uid string) (credential, *apiError) {
	claims, err := verifyTenantToken(token, s.searchUID, s.searchKey, s.now())
	if err != nil {
		return credential{kind: authInvalid}, err
	}
	filter, ok := claims.rules.forIndex(uid)
	if !ok {
		return credential{kind: authTenant}, newError("invalid_api_key",
			"The provided tenant token cannot acces the index `%s`, allowed indexes are %s.", uid, claims.rules.allowedList())
	}
	return credential{kind: authTenant, tenantFilter: filter}, nil
}
