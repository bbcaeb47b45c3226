package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/mcp"
	"github.com/wikigate/wikigate/protocol"
)

// MCPConfig is what the MCP front door (docs/agents.md, "MCP") needs from the
// gateway beyond the HTTP routes' configuration.
type MCPConfig struct {
	// Path is the endpoint, written as the audit record's endpoint
	// (default mcp.DefaultPath).
	Path string
	// Resource is the protected resource identifier (RFC 9728). When set,
	// a token must name it in aud: the MCP authorization spec wants tokens
	// issued for this server, so one minted for another resource that
	// shares the agent issuer is refused here even if the HTTP routes'
	// audience list accepts it.
	Resource string
	// ListTTL bounds how long a client may cache tools/list: the policy
	// may change at its next reload (default DefaultMCPListTTL).
	ListTTL time.Duration
}

// DefaultMCPListTTL is how long a tools/list stays cacheable by default.
const DefaultMCPListTTL = 30 * time.Second

// MCPGate is the gateway seen from the MCP front door (mcp.Gate). It adds
// no decision of its own: credentials are read by the tool routes'
// authenticator, tools/list is the policy's answer for each tool, and
// tools/call runs the routes' pipeline (execute).
type MCPGate struct {
	g     *Gateway
	cfg   MCPConfig
	known knownAgents // agents the policy knows (mcp_auth.go)
}

var _ mcp.Gate = (*MCPGate)(nil)

// MCP returns the gateway's MCP door.
func (g *Gateway) MCP(cfg MCPConfig) *MCPGate {
	if cfg.Path == "" {
		cfg.Path = mcp.DefaultPath
	}
	if cfg.ListTTL <= 0 {
		cfg.ListTTL = DefaultMCPListTTL
	}
	return &MCPGate{g: g, cfg: cfg}
}

// mcpTools are the tools MCP offers, in the protocol's order: the agent
// tool routes. A tool whose route this gate does not serve (no RAGFlow, no
// feedback store) is neither listed nor callable.
var mcpTools = []string{"search", "ask", "get_page", "get_context", "create_feedback", "create_improvement_task"}

func (m *MCPGate) route(tool string) (route, bool) {
	rt, ok := m.g.routes["/agent/tools/"+tool]
	return rt, ok
}

// Call runs one tools/call through the routes' pipeline (execute) and
// writes its audit record, under endpoint Path with the MCP session and
// JSON-RPC ids. Metrics see the record exactly as for an HTTP call.
func (m *MCPGate) Call(ctx context.Context, p identity.Principal, tool string, args json.RawMessage, meta mcp.CallMeta) (protocol.Result, error) {
	g := m.g
	rec := m.record(meta.HTTP)
	rec.Tool = tool
	rec.MCPSessionID = meta.SessionID
	rec.JSONRPCID = CutUTF8(meta.RequestID, maxAuditedRPCID)
	ctx, span := m.traceCall(ctx, tool, meta, rec)
	defer g.finishTraced(ctx, span, rec)

	out, err := m.call(ctx, p, tool, args, meta, rec)
	pe, closed := g.settle(ctx, rec, err)
	switch {
	case closed:
		return nil, fmt.Errorf("%w: %w", mcp.ErrClientClosed, err)
	case pe != nil:
		return nil, pe
	}
	return out, nil
}

func (m *MCPGate) call(ctx context.Context, p identity.Principal, tool string, args json.RawMessage, meta mcp.CallMeta, rec *audit.Record) (protocol.Result, error) {
	rt, ok := m.route(tool)
	if !ok {
		return nil, protocol.NewError(protocol.CodeNotFound, "this gate does not serve the tool "+tool)
	}
	rec.Tool = rt.tool
	in := callIn{reqID: rec.RequestID, rt: rt, rec: rec, r: meta.HTTP, progress: progressOf(meta.Progress), admitted: meta.Admitted}
	return m.g.execute(ctx, in, p, func() ([]byte, error) {
		// The routes' reader and cap: the MCP message may be larger than
		// a route's body, its arguments may not.
		return protocol.ReadBody(bytes.NewReader(args), m.g.cfg.MaxBodyBytes)
	})
}

// record starts an audit record for the MCP endpoint (startRecord).
func (m *MCPGate) record(r *http.Request) *audit.Record {
	return m.g.startRecord(requestID(), m.cfg.Path, r)
}

// maxAuditedRPCID bounds the client-chosen JSON-RPC id in a record.
const maxAuditedRPCID = 128

// progressOf numbers the stages of a call for MCP progress notifications
// (retrieving, N chunks in scope, generating: at most three).
func progressOf(notify func(done, total float64, message string)) func(string) {
	if notify == nil {
		return nil
	}
	done := 0.0
	return func(stage string) {
		done++
		notify(done, 3, stage)
	}
}

// SessionEvent audits an MCP session being opened, refused (reuse by
// another identity, too many sessions) or closed, in the same audit stream
// as the calls.
func (m *MCPGate) SessionEvent(ev mcp.SessionEvent) {
	rec := m.record(nil)
	recordCaller(rec, ev.Caller)
	rec.MCPSessionID = ev.SessionID
	rec.Result = ev.Kind
	if ev.Kind == mcp.EventSessionRefused {
		code := "session_forbidden"
		rec.Status = http.StatusForbidden
		if ev.Busy {
			rec.Status, code = http.StatusTooManyRequests, string(protocol.CodeRateLimited)
		}
		rec.Decision = &audit.Decision{Allow: false, Code: code, Reason: ev.Reason, Revision: m.g.deps.Policy.Revision()}
	}
	m.g.deps.Audit.Write(rec)
}

// listed reports whether p may call rt with an in-grant scope: the tool
// gate, then the call's own decision with nothing requested (every part of
// the scope is filled from the grant) and its guard. tools/list shows
// exactly these, so a listed tool is callable and a hidden one is not.
func (m *MCPGate) listed(ctx context.Context, rt route, p identity.Principal) (bool, error) {
	rec := &audit.Record{}
	if err := m.g.gateTool(ctx, rt, p, rec); err != nil {
		return false, deniedOrFailed(err)
	}
	c := &call{principal: p, rec: rec, req: emptyRequest{}}
	if err := m.g.decide(ctx, rt, c); err != nil {
		return false, deniedOrFailed(err)
	}
	return true, nil
}

// deniedOrFailed keeps the errors that are not a "no" about one tool: an
// unknown or disabled caller (the session must end) and a policy that
// could not decide (fail closed: no list rather than a wrong one).
func deniedOrFailed(err error) error {
	switch protocol.AsError(err).Code {
	case protocol.CodeUnauthorized, protocol.CodePolicyUnavailable:
		return err
	}
	return nil
}

// Tools asks the policy, tool by tool, what p may call (listed).
func (m *MCPGate) Tools(ctx context.Context, p identity.Principal) (mcp.Grants, error) {
	names := []string{}
	for _, tool := range mcpTools {
		rt, ok := m.route(tool)
		if !ok {
			continue
		}
		ok, err := m.listed(ctx, rt, p)
		if err != nil {
			return mcp.Grants{}, err
		}
		if ok {
			names = append(names, tool)
		}
	}
	return mcp.Grants{Tools: names, TTL: m.cfg.ListTTL}, nil
}

// emptyRequest is a call that asks for nothing: no scope, no pages.
type emptyRequest struct{}

func (emptyRequest) standard() *protocol.Standard { return &protocol.Standard{} }
func (emptyRequest) validate() error              { return nil }
func (emptyRequest) pages() []string              { return nil }
