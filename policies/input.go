package policies

import (
	"bytes"
	"encoding/json"
	"fmt"

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

// Input is one call as the policy sees it (DESIGN §5). Scope, Pages and Page
// are already validated and normalized by the gateway, so the policy can
// compare paths as plain strings.
type Input struct {
	Endpoint string            `json:"endpoint"`          // e.g. "/agent/tools/search", "/answer/ask"
	Tool     string            `json:"tool"`              // search|ask|get_page|get_context|create_feedback|create_improvement_task
	Action   string            `json:"action"`            // "read" | "write"
	SiteMode string            `json:"site_mode"`         // "public-read" | "authenticated-read"
	Caller   Caller            `json:"caller"`            // authenticated identity
	Scope    *protocol.Scope   `json:"scope"`             // requested scope; nil = none given
	Pages    []string          `json:"pages,omitempty"`   // get_page paths
	Page     *protocol.PageRef `json:"page,omitempty"`    // page a human asked from
	Session  *SessionInput     `json:"session,omitempty"` // set on session turns
}

// SessionInput carries the scope a session was created with, so a turn can be
// held inside it.
type SessionInput struct {
	Scope protocol.Scope `json:"scope"`
}

// toValue turns in into the plain JSON-shaped value OPA evaluates, with
// numbers as json.Number as OPA requires (opa: v1/rego/example_test.go
// ExampleRego_Eval_input). The round trip keeps the policy's view of the input
// identical to its JSON form, which is also what the security team writes in
// *_test.rego fixtures.
func (in Input) toValue() (map[string]any, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("encode policy input: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var value map[string]any
	if err := dec.Decode(&value); err != nil {
		return nil, fmt.Errorf("decode policy input: %w", err)
	}
	return value, nil
}
