package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/protocol"
)

// Gate is the HTTP tools' pipeline seen from MCP. The gateway implements it
// so that an MCP client and an HTTP client of the same identity get the same
// decisions, the same results and the same audit trail.
type Gate interface {
	// Authenticate reads the credential of the HTTP request carrying an MCP
	// message exactly as the tool routes do (agent JWT or X-Agent-Api-Key;
	// in public-read an anonymous caller is a public reader). An error is a
	// *protocol.Error with code unauthorized; the handler answers it with
	// 401 and the resource-metadata challenge.
	Authenticate(r *http.Request) (Caller, error)

	// Tools asks the policy which of the six tools p is granted, so that
	// tools/list shows exactly what tools/call would allow (list/call
	// parity). Names outside the six are ignored.
	Tools(ctx context.Context, p identity.Principal) (Grants, error)

	// Call runs tool with its JSON arguments through the same admit →
	// decide → guard → backend → response check → audit path as the HTTP
	// route. It returns the result the route would write (a
	// protocol.Result: its JSON is structuredContent, its text the
	// content) or a *protocol.Error; any other error is reported to the
	// client as internal.
	Call(ctx context.Context, p identity.Principal, tool string, args json.RawMessage, meta CallMeta) (protocol.Result, error)

	// SessionEvent records a session being opened, refused or closed
	// (tool calls are audited by Call itself). It must not block.
	SessionEvent(ev SessionEvent)
}

// Caller is an authenticated MCP caller.
type Caller struct {
	Principal identity.Principal

	// Expires tells when the credential stops being accepted (JWT exp, API
	// key expiry); zero when it has none (anonymous). A session dies then,
	// and list results are never cacheable past it. It is a function so a
	// gate can read it only when asked: a stateless tools/call never needs
	// it, and for a JWT it is a second parse of the token. Nil means none.
	Expires func() time.Time

	// Recheck reports whether the credential would still be accepted now
	// (a revoked API key, a rotated signing key). Nil means only Expires
	// matters. Handler.Refresh calls it for every open session, so it must
	// not keep the raw credential around longer than the gate already does.
	Recheck func(ctx context.Context) error
}

// expiry is c.Expires(), or zero when the gate did not say.
func (c Caller) expiry() time.Time {
	if c.Expires == nil {
		return time.Time{}
	}
	return c.Expires()
}

// Grants is the policy's answer to "which tools may this caller use".
type Grants struct {
	Tools []string

	// TTL bounds how long a client may cache the list (ttlMs): the policy
	// may change at its next reload, so the gate passes its reload period.
	// Zero means "do not cache".
	TTL time.Duration
}

// CallMeta is what Gate.Call needs beyond the arguments: correlation ids
// for the audit record and a channel back to the client.
type CallMeta struct {
	// SessionID is the MCP session (2025-11-25, 2025-06-18); "" on the
	// stateless 2026-07-28 revision.
	SessionID string
	// RequestID is the JSON-RPC id exactly as the client sent it (JSON
	// text: 7 or "a1").
	RequestID string
	// Revision is the protocol revision of the session or request.
	Revision string
	// HTTP is the request that carried the call (client request id, remote
	// address). Read its headers only; its body has been consumed.
	HTTP *http.Request
	// Progress reports a stage of a long call ("retrieving", "N chunks in
	// scope", "generating"). It is nil when the client sent no progress
	// token; done and total follow MCP's progress notification (total 0:
	// unknown).
	Progress func(done, total float64, message string)
	// Admitted, when set, is called once the call has passed the tool gate,
	// the decision and the rate limits, before any backend work: until
	// then the handler holds back the response's start, so that a
	// rate-limited call can still be answered 429 (docs/agents.md "MCP").
	Admitted func()
}
