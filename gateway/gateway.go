// Package gateway is wikigate's request path (docs/architecture.md, "Layers")
// as a plain http.Handler: route, bounded strict decode, identity, policy
// decision, rewrite into the decided scope, backend call, response-side check,
// reshaping and one audit record per call. The Caddy module only provisions it
// and hands requests over, so everything here is testable without Caddy.
package gateway

import (
	"context"
	"errors"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/feedback"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/quota"
	"github.com/wikigate/wikigate/router"
	"github.com/wikigate/wikigate/sessions"
	"github.com/wikigate/wikigate/sitemap"
	"github.com/wikigate/wikigate/stream"
	"github.com/wikigate/wikigate/telemetry"
)

// Authenticator verifies the caller's credential (identity.Authenticator).
// Every method is required: a fake without the credential checks fails to
// compile instead of getting an MCP door that refuses every session.
type Authenticator interface {
	AuthenticateAgent(r *http.Request) (identity.Principal, error)
	AuthenticateAnswer(r *http.Request) (identity.Principal, error)
	// CredentialInfo tells when r's credential stops being accepted and
	// which audiences it names: an MCP session dies with its credential,
	// and a token for another resource is refused there.
	CredentialInfo(r *http.Request, p identity.Principal) identity.CredentialInfo
	// CheckAPIKey reports whether the key with this prefix is still
	// accepted (not revoked, not expired), for a session's later requests.
	CheckAPIKey(prefix string) error
}

// Decider is the policy engine (policies.Engine). DecideTool is its tool
// gate: the checks the protocol puts before the body, asked with the caller
// and the tool only (docs/protocol.md, "Order of checks").
type Decider interface {
	Decide(ctx context.Context, in policies.Input) (policies.Decision, error)
	DecideTool(ctx context.Context, in policies.Input) (policies.Decision, error)
	Revision() string
}

// The production collaborators offer everything the gateway asks of them.
var (
	_ Authenticator = (*identity.Authenticator)(nil)
	_ Decider       = (*policies.Engine)(nil)
)

// Searcher is the Meilisearch client (meili.Client).
type Searcher interface {
	Search(ctx context.Context, p meili.SearchParams) (*meili.SearchResponse, error)
	Health(ctx context.Context) error
}

// Observer is told about every finished call, after its audit record is
// written. It must be fast and safe for concurrent use.
type Observer interface {
	Observe(rec *audit.Record)
}

// DefaultBackendTimeout is the safety net over a whole call. The RAGFlow
// client bounds each phase itself (retrieval 5s; generation by time to
// first byte and idle time between events), so this only cuts a generation
// that keeps streaming for longer than any answer should.
const DefaultBackendTimeout = 2 * time.Minute

// Config holds the gateway's tunables; zero values take the defaults.
type Config struct {
	SiteMode        string        // public-read (default) | authenticated-read
	MaxBodyBytes    int64         // default protocol.DefaultMaxBodyBytes
	DecisionTimeout time.Duration // default 1s
	// BackendTimeout bounds all the backend work of one call (an answer is a
	// retrieval and a generation; each is also bounded by its client's own
	// timeouts). Default DefaultBackendTimeout.
	BackendTimeout time.Duration
	Answer         AnswerConfig
	SearchIndex    string          // the Meilisearch index this gate searches; a decision naming another denies
	SessionTTL     time.Duration   // default 30m
	SessionLimits  sessions.Limits // defaults 8 turns, 12000 tokens
	Stream         StreamConfig    // streamed answers
	// FeedbackLimit is each caller's budget on POST /answer/feedback.
	FeedbackLimit FeedbackLimit
	// Site maps a question's page.url to the page's path and version
	// through the site mapping ingest used (docs/ingest.md, One site mapping);
	// nil maps none, so every page.url keeps the default scope.
	Site *sitemap.Resolver
}

// Deps are the collaborators the gateway calls.
type Deps struct {
	Auth    Authenticator
	Policy  Decider
	Search  Searcher
	Answers Answerer // RAGFlow; nil leaves the answer routes out
	// Sessions stores AnswerSessions; nil leaves the session routes out.
	Sessions sessions.Store
	// Feedback stores feedback and improvement tasks; nil leaves the
	// write tools out.
	Feedback feedback.Submitter
	Audit    *audit.Logger
	// Observer, when set, sees every finished call's record (metrics).
	Observer Observer
	// KeyStore, when set, is reported by /healthz (a key file that does
	// not parse refuses every key until it is fixed).
	KeyStore interface{ LastError() error }
	// Quotas keeps the budgets of the policy's rate limits (decision
	// limits); nil keeps them in this process (quota.Memory).
	Quotas quota.Store
	// OpenAPI, when set, writes the OpenAPI document of the routes this
	// gate serves (openapi.Build), served at GET /openapi.json.
	OpenAPI func([]RouteDoc) ([]byte, error)
	// Tokens keeps the policy's token budgets (limits with tokens); nil
	// keeps them in this process (quota.MemoryTokens).
	Tokens quota.TokenStore
	// Routes are route families served through this pipeline besides the
	// protocol's (meiliroutes.Set: the Meilisearch-compatible routes).
	Routes []RouteSet
	// Tracer, when set, traces every call (docs/operators.md, Tracing); nil is off.
	Tracer *telemetry.Provider
	Logger *zap.Logger
}

// Gateway serves the protocol routes.
type Gateway struct {
	cfg     Config
	deps    Deps
	openAPI openAPIDoc
	routes  map[string]route
	// router serves Entries on their own (ServeHTTP); the gate serves them
	// through package front's table, with MCP and the widget.
	router  *router.Router
	health  healthCache
	streams *stream.Limiter // open answer streams, per caller and in all
	replay  *stream.Replay  // recent streams' events, for resuming
	// feedbackLimits is each caller's budget of people's feedback.
	feedbackLimits *quota.Keyed
	now            func() time.Time
}

// New checks deps and applies defaults.
func New(cfg Config, deps Deps) (*Gateway, error) {
	if deps.Auth == nil || deps.Policy == nil || deps.Search == nil {
		return nil, errors.New("gateway needs an authenticator, a policy engine and a search backend")
	}
	if cfg.SiteMode == "" {
		cfg.SiteMode = "public-read"
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = protocol.DefaultMaxBodyBytes
	}
	if cfg.DecisionTimeout <= 0 {
		cfg.DecisionTimeout = time.Second
	}
	if cfg.BackendTimeout <= 0 {
		cfg.BackendTimeout = DefaultBackendTimeout
	}
	applyAnswerDefaults(&cfg.Answer)
	applyStreamDefaults(&cfg.Stream)
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 30 * time.Minute
	}
	if deps.Logger == nil {
		deps.Logger = zap.NewNop()
	}
	if deps.Audit == nil {
		deps.Audit = audit.NewLogger(nil, false)
	}
	applyFeedbackDefaults(&cfg.FeedbackLimit)
	if deps.Quotas == nil {
		deps.Quotas = quota.NewMemory()
	}
	if deps.Tokens == nil {
		deps.Tokens = quota.NewMemoryTokens()
	}
	if deps.Tracer.Enabled() && deps.Answers != nil {
		deps.Answers = tracedAnswers{deps.Answers}
	}
	g := &Gateway{cfg: cfg, deps: deps, now: time.Now, streams: stream.NewLimiter(cfg.Stream.MaxPerCaller, cfg.Stream.MaxOpen),
		feedbackLimits: quota.NewKeyed(cfg.FeedbackLimit.Burst, cfg.FeedbackLimit.Every)}
	g.replay = newReplay(cfg.Stream, deps.Logger)
	g.routes = g.routeTable()
	var err error
	if g.router, err = router.New(g.Entries(), g.NotFound()); err != nil {
		return nil, err
	}
	return g, nil
}

// ServeHTTP answers every request with the gateway's entries alone
// (Entries): protocol routes, /healthz, /openapi.json, and a JSON 404 for
// anything else, so callers always get the protocol's error envelope.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.router.ServeHTTP(w, r)
}
