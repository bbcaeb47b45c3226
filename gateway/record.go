package gateway

import (
	"net/http"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/identity"
)

// startRecord is how every audit record starts, for the HTTP routes and MCP
// alike (docs/security.md, "Audit"): the gate's own id, the endpoint it is
// audited under, the time, and the caller's X-Request-Id when r (nil for a
// session event) carries a well-formed one.
func (g *Gateway) startRecord(reqID, endpoint string, r *http.Request) *audit.Record {
	rec := audit.New(reqID, endpoint, g.now())
	if r != nil {
		rec.ClientRequestID = clientRequestID(r)
	}
	return rec
}

// newRecord starts a route call's record: its endpoint and tool, and the
// session id of a session turn.
func (g *Gateway) newRecord(r *http.Request, reqID, pathID string, rt route) *audit.Record {
	rec := g.startRecord(reqID, rt.endpoint, r)
	rec.Tool = rt.tool
	if rt.endpoint == sessionTurnsPattern && validSessionID.MatchString(pathID) {
		rec.SessionID = pathID // an id of another shape is refused later, and never recorded
	}
	return rec
}

// recordCaller names the caller in rec, as every door does once it knows
// (or refused) the credential.
func recordCaller(rec *audit.Record, p identity.Principal) {
	rec.CallerType, rec.CallerID, rec.Credential, rec.KeyID = p.Type, p.ID, p.Credential, p.KeyID
}
