package policies

import (
	"github.com/wikigate/wikigate/protocol"
)

// Caller is the authenticated identity as the policy sees it. Only the
// identity layer fills it; nothing a client says about itself lands here.
type Caller struct {
	Type       string   `json:"type"`       // "agent" | "human"
	ID         string   `json:"id"`         // agent id, human subject, "" for anonymous
	Anonymous  bool     `json:"anonymous"`  // true for an anonymous human
	Roles      []string `json:"roles"`      // human roles from the SSO claim
	Credential string   `json:"credential"` // "jwt" | "api_key" | "sso" | "anonymous"
}

// Input is one call as the policy sees it (docs/security.md, What the policy
// decides). Scope, Pages and Page are already validated and normalized by the
// gateway, so the policy can compare paths as plain strings. The policy sees
// exactly the JSON encoding of Input (json tags below); input_value.go builds
// that value without the JSON round trip and must change with any field added
// here (its tests fail otherwise).
type Input struct {
	Endpoint string          `json:"endpoint"`          // e.g. "/agent/tools/search", "/answer/ask"
	Tool     string          `json:"tool"`              // search|ask|get_page|get_context|create_feedback|create_improvement_task
	Action   string          `json:"action"`            // "read" | "write"
	SiteMode string          `json:"site_mode"`         // "public-read" | "authenticated-read"
	Caller   Caller          `json:"caller"`            // authenticated identity
	Scope    *protocol.Scope `json:"scope"`             // requested scope; nil = none given
	Pages    []string        `json:"pages,omitempty"`   // get_page paths
	Page     *Page           `json:"page,omitempty"`    // page a human asked from
	Session  *SessionInput   `json:"session,omitempty"` // set on session turns
}

// Page is the page a human asked from as the policy sees it. Version is the
// docs version its URL names (/v1.0/...), which the request body cannot
// state on its own: the policy makes it the default scope's version.
type Page struct {
	Path    string `json:"path,omitempty"`
	URL     string `json:"url,omitempty"`
	Version string `json:"version,omitempty"`
}

// PageOf is p as the policy sees it; nil when no page was given.
func PageOf(p *protocol.PageRef) *Page {
	if p == nil {
		return nil
	}
	return &Page{Path: p.Path, URL: p.URL, Version: p.Version}
}

// SessionInput carries the scope a session was created with, so a turn can be
// held inside it.
type SessionInput struct {
	Scope protocol.Scope `json:"scope"`
}
