package gateway

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/mcp"
	"github.com/wikigate/wikigate/protocol"
)

// Authenticate reads the credential of an MCP request with the tool
// routes' authenticator: an agent JWT or X-Agent-Api-Key, one of them
// (identity.ReadCredential). Without any credential it asks the answer
// routes' rule instead, so in public-read the caller is an anonymous public
// reader (the policy grants it what it grants people) and in
// authenticated-read it is refused. An agent the policy does not know is
// refused here too (knownCaller), as the tool routes refuse it at their
// tool gate. A refusal is audited like a refused HTTP call.
func (m *MCPGate) Authenticate(r *http.Request) (mcp.Caller, error) {
	c, err := m.authenticate(r)
	var decision *audit.Decision
	if err == nil {
		decision, err = m.knownCaller(r.Context(), c.Principal)
	}
	if err != nil {
		rec := m.record(r)
		recordCaller(rec, c.Principal)
		rec.Decision = decision
		noteRefusedKey(rec, err)
		rec.Fail(protocol.AsError(err))
		m.g.finish(r.Context(), rec)
		return mcp.Caller{}, err
	}
	return c, nil
}

func (m *MCPGate) authenticate(r *http.Request) (mcp.Caller, error) {
	auth := m.g.deps.Auth
	cred, err := identity.ReadCredential(r)
	switch {
	case err != nil:
		return mcp.Caller{}, err
	case cred.Kind == identity.PresentedNone:
		p, err := auth.AuthenticateAnswer(r)
		if err != nil || !p.Anonymous {
			return mcp.Caller{}, orUnauthorized(err)
		}
		return mcp.Caller{Principal: p}, nil
	}
	p, err := auth.AuthenticateAgent(r)
	if err != nil {
		return mcp.Caller{}, err
	}
	c := mcp.Caller{Principal: p, Expires: expiryOf(auth, r, p)}
	if p.Credential == identity.CredentialJWT && m.cfg.Resource != "" {
		info := auth.CredentialInfo(r, p)
		if !slices.Contains(info.Audience, m.cfg.Resource) {
			return mcp.Caller{Principal: p}, protocol.NewError(protocol.CodeUnauthorized, "token audience is not this resource ("+m.cfg.Resource+")")
		}
		c.Expires = func() time.Time { return info.Expires }
	}
	if p.Credential == identity.CredentialAPIKey {
		prefix := p.KeyID
		c.Recheck = func(context.Context) error { return auth.CheckAPIKey(prefix) }
	}
	return c, nil
}

// knownCaller asks the policy's tool gate about an authenticated agent
// before the MCP message is read, as the tool routes do before their body:
// a validly signed token or key for an agent the policy data does not know
// (or has disabled) is 401 unauthorized at initialize, not a session whose
// tools/list then fails. The question is the first served tool's gate, the
// decision tools/list and tools/call ask too; a "no" about that tool alone
// (forbidden_tool) is not a refusal here, and a policy that cannot decide
// refuses (fail closed). Anonymous readers were admitted by the site mode
// and have no entry to look up.
func (m *MCPGate) knownCaller(ctx context.Context, p identity.Principal) (*audit.Decision, error) {
	if p.Anonymous {
		return nil, nil
	}
	revision := m.g.deps.Policy.Revision() // read before deciding: see knownAgents
	if m.known.has(p, revision) {
		return nil, nil
	}
	for _, tool := range mcpTools {
		rt, ok := m.route(tool)
		if !ok {
			continue
		}
		rec := &audit.Record{}
		err := deniedOrFailed(m.g.gateTool(ctx, rt, p, rec))
		if err == nil {
			m.known.add(p, revision)
		}
		return rec.Decision, err
	}
	return nil, nil
}

// knownAgents remembers which agents the tool gate found known, under the
// policy revision it decided with, so that every MCP request of a known
// agent costs a map lookup instead of a decision (a cached one is ~2.4 us,
// about a fifth of what MCP adds to a call). A reload gives a new revision
// and so a new question; the revision is read before the decision, so an
// entry is never newer than the policy that made it. Only agents the policy
// knows are kept, so it holds at most the policy data's agents.
type knownAgents struct{ m sync.Map } // agent id -> policy revision

func (k *knownAgents) has(p identity.Principal, revision string) bool {
	if p.Type != identity.TypeAgent {
		return false
	}
	v, ok := k.m.Load(p.ID)
	return ok && v.(string) == revision
}

func (k *knownAgents) add(p identity.Principal, revision string) {
	if p.Type == identity.TypeAgent {
		k.m.Store(p.ID, revision)
	}
}

// expiryOf reads when r's credential stops being accepted on first use
// only: for a JWT that is a second parse of the token (~4 us, 56 allocs),
// which sessions and tools/list need and a stateless tools/call does not.
// The request is dropped once read, so a session keeps no request alive.
func expiryOf(auth Authenticator, r *http.Request, p identity.Principal) func() time.Time {
	var (
		once    sync.Once
		expires time.Time
	)
	return func() time.Time {
		once.Do(func() {
			expires = auth.CredentialInfo(r, p).Expires
			r = nil
		})
		return expires
	}
}

func orUnauthorized(err error) error {
	if err == nil {
		return protocol.NewError(protocol.CodeUnauthorized, "missing credential")
	}
	return err
}
