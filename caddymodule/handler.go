// Package caddymodule is the thin Caddy wrapper around wikigate: the
// http.handlers.wikigate module, its Caddyfile directive and its lifecycle.
// All request logic lives in the gateway package; this package turns the
// operator's configuration into the gateway's collaborators.
package caddymodule

import (
	"fmt"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/front"
	"github.com/wikigate/wikigate/gateway"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/mcp"
	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/meiliroutes"
	"github.com/wikigate/wikigate/openapi"
	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/ragflow"
	"github.com/wikigate/wikigate/router"
	"github.com/wikigate/wikigate/telemetry"
)

func init() {
	caddy.RegisterModule(new(Handler))
}

// Handler serves the wikigate protocol routes (/answer/*, /agent/tools/*,
// /healthz). It is terminal: it answers every request it is given, with the
// protocol's JSON error envelope for unknown routes.
type Handler struct {
	// SiteMode is "public-read" (default: anonymous humans may ask about
	// approved docs) or "authenticated-read" (humans need an SSO token).
	SiteMode string `json:"site_mode,omitempty"`
	// PolicyDir holds the Rego policies and their data. Default "rego".
	PolicyDir string `json:"policy_dir,omitempty"`
	// SiteMapping is the mapping file ingest reads (sitemap.go).
	SiteMapping string `json:"site_mapping,omitempty"`
	// Policy: tested reloads and bundles (require_tests, bundle...).
	Policy *PolicyConfig `json:"policy,omitempty"`
	// WatchPolicy reloads the policy when PolicyDir changes (or polls the
	// bundle). Default true.
	WatchPolicy *bool `json:"watch_policy,omitempty"`
	// MaxBodyBytes caps request bodies. Default 65536.
	MaxBodyBytes int64 `json:"max_body_bytes,omitempty"`
	// DecisionTimeout bounds one policy decision. Default 1s.
	DecisionTimeout caddy.Duration `json:"decision_timeout,omitempty"`
	// BackendTimeout bounds all the backend work of one call (retrieval and
	// generation together); each backend call is also bounded by its own
	// timeouts. Default 2m.
	BackendTimeout caddy.Duration `json:"backend_timeout,omitempty"`
	// LogQuestions writes questions in clear in audit records. Default
	// false: only their SHA-256 is written.
	LogQuestions bool `json:"log_questions,omitempty"`
	// TokenMetricsPerCaller also counts generation tokens per caller
	// (caddy_wikigate_caller_tokens_total, one series per caller). Default
	// false: tokens are counted by tool and caller type only.
	TokenMetricsPerCaller bool `json:"token_metrics_per_caller,omitempty"`
	// AgentJWT verifies agents' bearer tokens.
	AgentJWT *JWTConfig `json:"agent_jwt,omitempty"`
	// HumanJWT verifies humans' SSO tokens (required in authenticated-read).
	HumanJWT *JWTConfig `json:"human_jwt,omitempty"`
	// APIKeysFile is the hashed API key store (X-Agent-Api-Key). Empty
	// disables API keys.
	APIKeysFile string `json:"api_keys_file,omitempty"`
	// Meilisearch is the page search backend.
	Meilisearch *MeiliConfig `json:"meilisearch,omitempty"`
	// RAGFlow is the retrieval and answer backend; without it the answer
	// routes (ask, /answer/*, get_context) are not served.
	RAGFlow *RAGFlowConfig `json:"ragflow,omitempty"`
	// Sessions configures AnswerSessions (/answer/sessions); they need RAGFlow.
	Sessions *SessionsConfig `json:"sessions,omitempty"`
	// Redis is the shared Redis for the stores set to `store redis`.
	Redis *RedisConfig `json:"redis,omitempty"`
	// Postgres is the shared PostgreSQL for the stores set to `store postgres`.
	Postgres *PostgresConfig `json:"postgres,omitempty"`
	// Feedback configures create_feedback and create_improvement_task;
	// without it those tools are not served.
	Feedback *FeedbackConfig `json:"feedback,omitempty"`
	// MCP serves the same tools over the Model Context Protocol.
	MCP *MCPConfig `json:"mcp,omitempty"`
	// CORS lets configured browser origins call the answer routes.
	CORS *CORSConfig `json:"cors,omitempty"`
	// Streaming tunes streamed answers (Accept: text/event-stream).
	Streaming *StreamingConfig `json:"streaming,omitempty"`
	// Widget serves the <wikigate-ask> component (and a demo page).
	Widget *WidgetConfig `json:"widget,omitempty"`

	gw       *gateway.Gateway
	auth     *identity.Authenticator
	keyStore *identity.KeyStore // nil without api_keys_file
	policy   *policies.Engine
	logger   *zap.Logger
	poolKeys []string            // stores taken from the usage pool, released in Cleanup
	mcp      *mcp.Handler        // nil without the mcp block
	front    *router.Router      // the route table (package front)
	tracer   *telemetry.Provider // nil: tracing off
}

// CaddyModule returns the Caddy module information.
func (*Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.wikigate",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision builds the policy engine, the authenticator, the backend
// clients and the gateway. It does no network I/O, so `caddy validate` and
// `caddy adapt` stay offline.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	repl := caddy.NewReplacer()
	obs, err := registerMetrics(ctx)
	if err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	opts, err := h.engineOptions(repl, obs)
	if err != nil {
		return err
	}
	engine, err := policies.New(ctx, opts)
	if err != nil {
		return fmt.Errorf("loading policy: %w", err)
	}
	h.policy = engine
	if h.WatchPolicy == nil || *h.WatchPolicy {
		go h.watchPolicy(ctx)
	}
	if h.auth, err = h.buildAuthenticator(repl); err != nil {
		return err
	}
	search, err := h.buildMeili(repl)
	if err != nil {
		return err
	}
	cfg := gateway.Config{
		SiteMode:        h.SiteMode,
		MaxBodyBytes:    h.MaxBodyBytes,
		DecisionTimeout: time.Duration(h.DecisionTimeout),
		BackendTimeout:  time.Duration(h.BackendTimeout),
		SearchIndex:     h.Meilisearch.index(),
		Stream:          h.Streaming.streamConfig(),
	}
	if cfg.Site, err = h.siteResolver(repl); err != nil {
		return err
	}
	if h.Feedback != nil {
		cfg.FeedbackLimit = h.Feedback.PeopleLimit.feedbackLimit()
	}
	if err := h.provisionTracing(ctx); err != nil {
		return err
	}
	deps := gateway.Deps{
		Auth:   h.auth,
		Policy: engine,
		Search: search,
		Routes: []gateway.RouteSet{meiliroutes.Set()}, // docs search boxes (docs/docs-sites.md)
		Audit:  audit.NewLogger(h.logger.Named("audit"), h.LogQuestions),
		Tracer: h.tracer,
		Logger: h.logger,
	}
	if h.keyStore != nil { // a typed nil in the interface would look set
		deps.KeyStore = h.keyStore
	}
	deps.Observer = h.observer(obs)
	deps.OpenAPI = openapi.Build // GET /openapi.json
	if h.RAGFlow != nil {
		rag, err := ragflow.New(h.RAGFlow.clientConfig(repl))
		if err != nil {
			return fmt.Errorf("ragflow: %w", err)
		}
		deps.Answers, cfg.Answer = rag, h.RAGFlow.answerConfig()
	}
	if err := h.provisionStores(repl, &cfg, &deps); err != nil {
		return err
	}
	if h.gw, err = gateway.New(cfg, deps); err != nil {
		return err
	}
	if err := h.provisionMCP(ctx, repl); err != nil {
		return err
	}
	h.front, err = front.New(front.Parts{Gateway: h.gw, MCP: h.mcp, Widget: h.Widget.handler(), CORS: h.CORS.policy(), Hold: holdAudited})
	return err
}

// provisionStores opens the session and feedback stores (shared across
// config reloads through the usage pool).
func (h *Handler) provisionStores(repl *caddy.Replacer, cfg *gateway.Config, deps *gateway.Deps) error {
	if err := h.provisionQuotas(repl, deps); err != nil {
		return err
	}
	if h.Sessions == nil {
		h.Sessions = new(SessionsConfig)
	}
	store, key, err := h.loadSessions(repl)
	if err != nil {
		return err
	}
	h.poolKeys = append(h.poolKeys, key)
	deps.Sessions, cfg.SessionTTL, cfg.SessionLimits = store, store.TTL(), h.Sessions.limits()
	if h.Feedback == nil {
		return nil
	}
	fb, key, err := h.Feedback.loadFeedback(h.Postgres, repl, h.logger.Named("feedback"))
	if err != nil {
		return err
	}
	h.poolKeys = append(h.poolKeys, key)
	deps.Feedback = fb
	return nil
}

// watchPolicy runs until this config is unloaded (ctx is done).
func (h *Handler) watchPolicy(ctx caddy.Context) {
	if err := h.policy.Watch(ctx); err != nil && ctx.Err() == nil {
		h.logger.Error("policy watcher stopped; edits to the policy need a config reload", zap.Error(err))
	}
}

func (h *Handler) buildMeili(repl *caddy.Replacer) (*meili.Client, error) {
	if h.Meilisearch == nil {
		return nil, fmt.Errorf("meilisearch backend is not configured")
	}
	c, err := meili.New(h.Meilisearch.clientConfig(repl))
	if err != nil {
		return nil, fmt.Errorf("meilisearch: %w", err)
	}
	return c, nil
}

// Validate checks what Provision cannot default.
func (h *Handler) Validate() error {
	switch h.SiteMode {
	case "", "public-read", "authenticated-read":
	default:
		return fmt.Errorf("site_mode must be public-read or authenticated-read, not %q", h.SiteMode)
	}
	if h.AgentJWT == nil && h.APIKeysFile == "" {
		return fmt.Errorf("no agent credential is configured: set agent_jwt or api_keys_file")
	}
	if h.CORS != nil {
		if err := h.CORS.validate(); err != nil {
			return err
		}
	}
	return nil
}

// Cleanup releases what Provision built, even after a partial Provision.
func (h *Handler) Cleanup() error {
	if h.policy != nil {
		h.policy.WaitDecisionLog() // its writer flushes as the config's context ends
	}
	if h.mcp != nil {
		h.mcp.Close() // clients initialize again on the new config
	}
	for _, key := range h.poolKeys {
		_, _ = stores.Delete(key)
	}
	h.shutdownTracing()
	if h.auth != nil {
		return h.auth.Close()
	}
	return nil
}

// ServeHTTP hands the request to the route table (package front): the
// gateway's routes, the MCP endpoint, the widget's files.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	h.front.ServeHTTP(w, r)
	return nil
}

// holdAudited is serveAudited as the route table's middleware on the
// gateway's calls: held until their audit record lands when the audit file
// syncs.
func holdAudited(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { serveAudited(next, w, r) })
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
	_ caddyfile.Unmarshaler       = (*Handler)(nil)
)
