package mcp

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wikigate/wikigate/protocol"
)

// Revisions are the protocol revisions the endpoint speaks (docs/agents.md,
// "MCP"). Older clients are answered with the newest session revision they can
// negotiate, as the lifecycle spec requires. 2025-03-26, the first revision
// with Streamable HTTP, is kept for clients that still name it in
// Mcp-Protocol-Version on a session (the official conformance suite's SSE
// scenarios do, whatever the session negotiated; the SDK would answer them
// 400). It weakens nothing: every message is still checked and authenticated
// by the front, and batches stay refused on every revision.
var Revisions = []string{revisionStateless, "2025-11-25", "2025-06-18", "2025-03-26"}

// Version is reported as the server's version.
var Version = "dev"

const instructions = "wikigate serves a team wiki through the tools you are granted: search finds pages, get_page reads them, " +
	"ask answers a question with citations, get_context gathers passages for a task, create_feedback reports what the wiki lacks. " +
	"A denial comes back as a tool error whose code (forbidden_tool, forbidden_scope, ...) says what to change."

// newServer builds an SDK server with the six tools. Every tool is
// registered on every server, even the ones a caller is not granted: a call
// to a hidden tool must still reach the gate, to be refused there with
// forbidden_tool and audited like the HTTP route would. What a caller sees
// in tools/list is decided per request by listMiddleware. s is the session
// the server belongs to (nil: the shared stateless server).
func (h *Handler) newServer(s *session) *mcpsdk.Server {
	opts := &mcpsdk.ServerOptions{
		Instructions: instructions,
		Logger:       h.log,
		Capabilities: &mcpsdk.ServerCapabilities{
			Tools:     &mcpsdk.ToolCapabilities{ListChanged: true},
			Resources: &mcpsdk.ResourceCapabilities{}, // wiki pages (resources.go); no list, no subscriptions
			Prompts:   &mcpsdk.PromptCapabilities{},   // none: the list is empty, but clients ask for it (docs/agents.md "MCP")
		},
		SupportedProtocolVersions: Revisions,
		SetCacheable:              setCacheable,
	}
	if s != nil {
		id := s.id
		opts.GetSessionID = func() string { return id }
		// A client may set its log level (the 2026-07-28 revision removed
		// logging/setLevel); the gate sends no log messages.
		//lint:ignore SA1019 logging is deprecated from 2026-07-28 on, but the earlier revisions the gate serves still have it
		opts.Capabilities.Logging = &mcpsdk.LoggingCapabilities{}
	}
	srv := mcpsdk.NewServer(h.impl, opts)
	for i := range toolDefs {
		srv.AddTool(toolObjects[i], h.toolHandler(toolDefs[i].name))
	}
	srv.AddResourceTemplate(pageTemplate, h.readPage)
	srv.AddReceivingMiddleware(h.listMiddleware)
	return srv
}

// toolObjects are built once: the SDK only reads them.
var toolObjects = func() []*mcpsdk.Tool {
	out := make([]*mcpsdk.Tool, len(toolDefs))
	for i, d := range toolDefs {
		out[i] = d.tool()
	}
	return out
}()

// setCacheable marks everything the SDK answers itself (server/discover)
// as private: it is answered to an authenticated caller.
func setCacheable(_ context.Context, req mcpsdk.Request, c *mcpsdk.Cacheable) {
	c.CacheScope = "private"
	if _, ok := req.GetParams().(*mcpsdk.DiscoverParams); ok {
		c.TTLMs = int((5 * time.Minute).Milliseconds()) // capabilities do not change while the gate runs
	}
}

// listMiddleware answers tools/list from the policy (Gate.Tools), per
// request, so the list is exactly what tools/call would allow.
func (h *Handler) listMiddleware(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		if method != "tools/list" {
			return next(ctx, method, req)
		}
		ex := h.exchanges.of(req)
		if ex == nil {
			return nil, errNoExchange
		}
		return h.listTools(ctx, ex)
	}
}

var errNoExchange = &jsonrpc.Error{Code: codeInternal, Message: "request context lost"}

func (h *Handler) listTools(ctx context.Context, ex *exchange) (*mcpsdk.ListToolsResult, error) {
	g, err := h.gate.Tools(ctx, ex.caller.Principal)
	if err != nil {
		return nil, rpcError(err)
	}
	names, tools := granted(g.Tools)
	if ex.session != nil {
		ex.session.setListed(names)
	}
	res := &mcpsdk.ListToolsResult{Tools: tools}
	res.CacheScope = "private" // per caller: a shared cache must not serve it to anyone else
	res.TTLMs = ttlMs(g.TTL, ex.caller.expiry(), time.Now())
	return res, nil
}

// granted keeps the known tools of a grant, in the canonical order.
func granted(grant []string) ([]string, []*mcpsdk.Tool) {
	names := []string{}
	tools := []*mcpsdk.Tool{}
	for i, d := range toolDefs {
		for _, g := range grant {
			if g == d.name {
				names = append(names, d.name)
				tools = append(tools, toolObjects[i])
				break
			}
		}
	}
	return names, tools
}

// ttlMs is how long a list may be cached: no longer than the policy may
// stay unchanged nor than the credential it was listed for is valid.
func ttlMs(policy time.Duration, expires, now time.Time) int {
	ttl := policy
	if !expires.IsZero() {
		ttl = min(ttl, expires.Sub(now))
	}
	return int(max(ttl, 0).Milliseconds())
}

// rpcError turns a gate error outside a tool call into a JSON-RPC error;
// the protocol code travels in data.
func rpcError(err error) error {
	pe := protocol.AsError(err)
	return &jsonrpc.Error{Code: codeInternal, Message: pe.Message, Data: mustJSON(errorData{Code: string(pe.Code)})}
}
