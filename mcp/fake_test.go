package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/router"
)

// fakeGate stands in for the gateway: bearer "agent:<id>" authenticates
// agent <id>, "expired" is refused, no credential is an anonymous reader
// in public-read and refused otherwise.
type fakeGate struct {
	publicRead bool
	expires    time.Time
	searchHits int // > 0: search returns this many bench-sized hits (benchHits)

	mu     sync.Mutex
	grants map[string][]string // agent id ("" anonymous) → tools
	metas  []CallMeta
	events []SessionEvent

	authCalls atomic.Int64
	toolCalls atomic.Int64
	calls     atomic.Int64
	closed    atomic.Int64  // calls that ended because their client went away
	started   chan struct{} // a "slow" call is running
}

func newFakeGate() *fakeGate {
	return &fakeGate{started: make(chan struct{}, 8), grants: map[string][]string{
		"coder": {"search", "ask", "get_page", "get_context", "create_feedback"},
		"ops":   {"search", "get_page"},
		"":      {"search", "ask"},
	}}
}

func (g *fakeGate) Authenticate(r *http.Request) (Caller, error) {
	g.authCalls.Add(1)
	cred := r.Header.Get("Authorization")
	switch {
	case strings.HasPrefix(cred, "Bearer agent:"):
		return Caller{Principal: identity.Principal{Type: identity.TypeAgent, ID: strings.TrimPrefix(cred, "Bearer agent:"), Credential: identity.CredentialJWT}, Expires: func() time.Time { return g.expires }}, nil
	case cred != "":
		return Caller{}, protocol.NewError(protocol.CodeUnauthorized, "token expired")
	case g.publicRead:
		return Caller{Principal: identity.Principal{Type: identity.TypeHuman, Credential: identity.CredentialAnonymous, Anonymous: true}}, nil
	}
	return Caller{}, protocol.NewError(protocol.CodeUnauthorized, "missing credential")
}

func (g *fakeGate) Tools(_ context.Context, p identity.Principal) (Grants, error) {
	g.toolCalls.Add(1)
	g.mu.Lock()
	defer g.mu.Unlock()
	return Grants{Tools: slices.Clone(g.grants[p.ID]), TTL: 30 * time.Second}, nil
}

func (g *fakeGate) setGrants(id string, tools ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.grants[id] = tools
}

func (g *fakeGate) SessionEvent(ev SessionEvent) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.events = append(g.events, ev)
}

func (g *fakeGate) lastMeta() CallMeta {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.metas[len(g.metas)-1]
}

// Call mimics the pipeline's denials: a tool outside the grant is
// forbidden_tool, a project named "other" forbidden_scope.
func (g *fakeGate) Call(ctx context.Context, p identity.Principal, tool string, args json.RawMessage, meta CallMeta) (protocol.Result, error) {
	g.calls.Add(1)
	g.mu.Lock()
	g.metas = append(g.metas, meta)
	allowed := slices.Contains(g.grants[p.ID], tool)
	g.mu.Unlock()
	if !allowed {
		return nil, protocol.NewError(protocol.CodeForbiddenTool, "this tool is not granted to you")
	}
	var req struct {
		Question string `json:"question"`
		Path     string `json:"path"`
		Scope    struct {
			Projects []string `json:"projects"`
			Version  string   `json:"version"`
		} `json:"scope"`
	}
	if err := json.Unmarshal(args, &req); err != nil {
		return nil, protocol.NewError(protocol.CodeInvalidRequest, "bad arguments")
	}
	if slices.Contains(req.Scope.Projects, "other") {
		return nil, protocol.NewError(protocol.CodeForbiddenScope, "project other is outside your scope")
	}
	switch req.Question {
	case "limited": // spent budget, as the gateway's limits answer (before admission)
		e := protocol.NewError(protocol.CodeRateLimited, "rate limit agents (2 per 60s) reached; retry later")
		e.Header = http.Header{"Retry-After": {"42"}, "Ratelimit-Policy": {`"agents";q=2;w=60`}, "Ratelimit": {`"agents";r=0;t=42`}}
		return nil, e
	case "slow": // runs until its client goes away, as a backend call would
		if meta.Admitted != nil {
			meta.Admitted()
		}
		g.started <- struct{}{}
		<-ctx.Done()
		g.closed.Add(1)
		return nil, fmt.Errorf("%w: %w", ErrClientClosed, ctx.Err())
	}
	if meta.Admitted != nil {
		meta.Admitted()
	}
	audit := protocol.Audit{RequestID: "req-1", Caller: "agent:" + p.ID, Scope: "kunora-kgent"}
	switch tool {
	case "search":
		if g.searchHits > 0 {
			return &protocol.SearchResult{Total: g.searchHits, Audit: audit, Hits: benchHits(g.searchHits)}, nil
		}
		return &protocol.SearchResult{Total: 1, Audit: audit, Hits: []protocol.SearchHit{{
			Path: "publish/kgent/memory.md", URL: "/kgent/memory/", Title: "Agent memory", Snippet: "memory " + req.Question,
			Score: 0.9, SourceProject: "kunora-kgent", Version: "main"}}}, nil
	case "get_page":
		page := fakePage(req.Path, req.Scope.Version, audit)
		return &page, nil
	case "ask":
		if meta.Progress != nil {
			meta.Progress(1, 3, "retrieving")
			meta.Progress(2, 3, "generating")
		}
		return &protocol.AnswerResult{Answer: "Use Redis [1].", Confidence: protocol.ConfidenceHigh, Audit: audit,
			Grounding: protocol.Grounding{Status: protocol.GroundingGrounded},
			Citations: []protocol.Citation{{Path: "publish/kgent/memory.md", URL: "/kgent/memory/", Title: "Agent memory",
				ChunkID: "c1", SourceProject: "kunora-kgent", Version: "main"}}}, nil
	case "get_context":
		return &protocol.ContextPack{Question: req.Question, Items: []protocol.ContextItem{{Path: "publish/kgent/memory.md", URL: "/kgent/memory/",
			Title: "Agent memory", ChunkID: "c1", Content: "Use <Redis> & more.", Score: 0.8, SourceProject: "kunora-kgent", Version: "main"}},
			Citations: []protocol.Citation{}, TokenEstimate: 5, MaxTokens: 4000, Audit: audit}, nil
	}
	return &protocol.FeedbackReceipt{Body: fakeReceipt}, nil
}

// fakeReceipt is a feedback response as the gateway renders it
// (json.Marshal's bytes, HTML escaped).
var fakeReceipt = []byte(`{"record":{"id":"f1","type":"create_feedback","eventType":"qa_no_answer","dedupeKey":"k\u003c1\u003e","status":"open",` +
	`"count":2,"firstSeenAt":"2026-01-01T00:00:00Z","lastSeenAt":"2026-01-02T00:00:00Z"},"created":false,"audit":{"requestId":"req-1","caller":"agent:coder","scope":"kunora-kgent"}}`)

// server starts the handler on loopback, with the metadata documents.
func server(t *testing.T, g *fakeGate, cfg Config) (*Handler, *httptest.Server) {
	t.Helper()
	cfg.Enabled = true
	h, err := New(cfg, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h, startHandler(t, h)
}

func startHandler(t *testing.T, h *Handler) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle(h.Config().Path, router.Chain(h, h.CheckHost, h.CheckOrigin, h.EndpointCORS)) // as front's table has it
	for _, p := range h.MetadataPaths() {
		mux.Handle(p, h.CheckMetadataHost(h.Metadata()))
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { h.Close(); srv.Close() })
	return srv
}

// bearer adds an Authorization header to every request of the SDK client.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.base.RoundTrip(r)
}

// connect opens an SDK client session as token ("" anonymous) speaking
// revision ("" the SDK's latest, i.e. stateless 2026-07-28).
func connect(t *testing.T, srv *httptest.Server, token, revision string, opts *mcpsdk.ClientOptions) *mcpsdk.ClientSession {
	t.Helper()
	cs, err := dial(srv, token, revision, opts)
	if err != nil {
		t.Fatalf("connect as %q (%s): %v", token, revision, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func dial(srv *httptest.Server, token, revision string, opts *mcpsdk.ClientOptions) (*mcpsdk.ClientSession, error) {
	return dialVia(srv, srv.Client().Transport, token, revision, opts)
}

// dialVia is dial sending through rt.
func dialVia(srv *httptest.Server, rt http.RoundTripper, token, revision string, opts *mcpsdk.ClientOptions) (*mcpsdk.ClientSession, error) {
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test-agent", Version: "1"}, opts)
	tr := &mcpsdk.StreamableClientTransport{
		Endpoint:   srv.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token: token, base: rt}},
		MaxRetries: -1, DisableStandaloneSSE: opts == nil || opts.ToolListChangedHandler == nil,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return client.Connect(ctx, tr, &mcpsdk.ClientSessionOptions{ProtocolVersion: revision})
}

func toolNames(t *testing.T, cs *mcpsdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (g *fakeGate) hasEvent(kind string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, ev := range g.events {
		if ev.Kind == kind {
			return true
		}
	}
	return false
}

// fakePage answers get_page as the gateway does: memory.md of version main
// is readable, anything under publish/secret/ is outside the scope, other
// paths are not there.
func fakePage(path, version string, audit protocol.Audit) protocol.PageResult {
	res := protocol.PageResult{Pages: []protocol.Page{}, Errors: []protocol.PageError{}, Audit: audit}
	switch {
	case strings.HasPrefix(path, "publish/secret/"):
		res.Errors = append(res.Errors, protocol.PageError{Path: path, Code: protocol.CodeForbiddenScope, Message: "page is outside your scope"})
	case path == "publish/kgent/memory.md" && version == "main":
		res.Pages = append(res.Pages, protocol.Page{Path: path, URL: "/kgent/memory/", Title: "Agent memory", Version: version,
			SourceProject: "kunora-kgent", Content: "# Agent memory\n\nUse Redis.", Headings: []string{"Agent memory"}})
	default:
		res.Errors = append(res.Errors, protocol.PageError{Path: path, Code: protocol.CodeNotFound, Message: "page not found"})
	}
	return res
}
