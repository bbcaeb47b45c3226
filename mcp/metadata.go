package mcp

import (
	"net/http"
	"net/url"
	"strings"

	json "github.com/go-json-experiment/json"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// wellKnownMetadata is the RFC 9728 §3 well-known prefix.
const wellKnownMetadata = "/.well-known/oauth-protected-resource"

// MetadataPaths are the paths Handler.Metadata answers: the plain
// well-known document and the one suffixed with the endpoint's path, which
// is where RFC 9728 §3.1 says a client looks for the metadata of /mcp.
func (h *Handler) MetadataPaths() []string {
	return []string{wellKnownMetadata, wellKnownMetadata + h.cfg.Path}
}

// Metadata serves the OAuth protected-resource metadata (RFC 9728): the
// resource identifier tokens must be issued for, the authorization servers
// that issue them, the scopes and how to send a token. It is public: a
// client reads it before it has any credential. The route table puts the
// endpoint's Host rule before it (CheckMetadataHost).
func (h *Handler) Metadata() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != wellKnownMetadata && r.URL.Path != wellKnownMetadata+h.cfg.Path {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", "*") // public discovery document (RFC 9728 §3)
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "GET, OPTIONS")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		body, err := json.Marshal(h.metadata(r))
		if err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(body)
	})
}

func (h *Handler) metadata(r *http.Request) *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               h.resource(r),
		AuthorizationServers:   h.cfg.AuthorizationServers,
		ScopesSupported:        h.cfg.Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "wikigate wiki tools",
	}
}

// resource is the protected resource's identifier: configured, or this
// endpoint's URL as the client reached it.
func (h *Handler) resource(r *http.Request) string {
	if h.cfg.Resource != "" {
		return h.cfg.Resource
	}
	return requestBase(r) + h.cfg.Path
}

// metadataURL is where the challenge sends a client: the path-suffixed
// document on the resource's own origin.
func (h *Handler) metadataURL(r *http.Request) string {
	base := requestBase(r)
	if h.cfg.Resource != "" {
		if u, err := url.Parse(h.cfg.Resource); err == nil {
			base = u.Scheme + "://" + u.Host
		}
	}
	return base + wellKnownMetadata + h.cfg.Path
}

// requestBase is scheme://host of r. Caddy terminates TLS itself, so r.TLS
// tells the scheme; behind another proxy, configure Resource.
func requestBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	if strings.ContainsAny(host, "\"\\ /") { // never let a Host header break the challenge's quoting
		host = "localhost"
	}
	return scheme + "://" + host
}
