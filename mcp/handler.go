package mcp

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wikigate/wikigate/cors"
)

// Handler is the MCP endpoint (Streamable HTTP) and the OAuth protected
// resource metadata that goes with it.
//
// Every POST is checked (one JSON-RPC message, headers agree with the body)
// and authenticated before the SDK sees it. Then a 2026-07-28 request goes
// to the SDK's stateless handler, and anything else to its session handler
// after the session is bound to the caller. The SDK cannot serve both from
// one handler: a stateless handler ignores sessions, a stateful one refuses
// the 2026-07-28 revision.
type Handler struct {
	cfg       Config
	gate      Gate
	hosts     hostPolicy
	origins   originPolicy
	log       *slog.Logger
	shared    *mcpsdk.Server // stateless requests; sessions have their own
	stateless http.Handler
	stateful  http.Handler
	sessions  *sessionTable
	exchanges exchanges
	inflight  inflight    // session calls on the fast path, for notifications/cancelled
	events    *eventStore // resumable streams of 2025-11-25 sessions

	impl           *mcpsdk.Implementation // the server's identity, on every server
	serverMeta     mcpsdk.Meta            // _meta of fast-path results (serveFast)
	serverMetaJSON []byte                 // the same, as the SDK encodes it
	noFast         bool                   // tests: answer everything through the SDK
}

// New builds the handler. cfg is completed with its defaults and checked.
func New(cfg Config, gate Gate, log *slog.Logger) (*Handler, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if gate == nil {
		return nil, fmt.Errorf("mcp: no gate")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{cfg: cfg, gate: gate, hosts: newHostPolicy(cfg.AllowedHosts), origins: newOriginPolicy(cfg.AllowedOrigins), log: log,
		sessions: newSessionTable(cfg.MaxSessionsPerCaller)}
	h.impl = &mcpsdk.Implementation{Name: "wikigate", Title: "wikigate wiki tools", Version: Version}
	h.serverMeta = serverInfoMeta(h.impl)
	h.serverMetaJSON = mustJSON(h.serverMeta)
	h.shared = h.newServer(nil)
	h.events = newEventStore()
	h.stateless = mcpsdk.NewStreamableHTTPHandler(h.getServer, &mcpsdk.StreamableHTTPOptions{
		Stateless: true, Logger: log, MaxRequestBodyBytes: cfg.MaxBodyBytes, PropagateRequestCancellation: true,
		DisableLocalhostProtection: true, // CheckHost checks Host first (hostPolicy), with the operator's names
	})
	h.stateful = mcpsdk.NewStreamableHTTPHandler(h.getServer, &mcpsdk.StreamableHTTPOptions{
		// No SessionTimeout: the gate times idle sessions out itself
		// (session.begin/end), because the session fast path answers
		// requests the SDK never sees.
		Logger: log, MaxRequestBodyBytes: cfg.MaxBodyBytes, DisableLocalhostProtection: true,
		// Streams of 2025-11-25 sessions start with a priming event and
		// resume from Last-Event-ID (docs/agents.md "MCP"). The store is bounded
		// (the SDK's 10 MiB, oldest streams purged first), forgets a
		// session's events when it closes and never keeps the response to
		// a cancelled call (eventStore).
		EventStore: h.events,
	})
	return h, nil
}

// Config is the configuration in effect (defaults applied).
func (h *Handler) Config() Config { return h.cfg }

// getServer is the SDK's server lookup: a session being initialized gets
// its own Server, everything else the shared one.
func (h *Handler) getServer(r *http.Request) *mcpsdk.Server {
	if ex := exchangeOf(r); ex != nil && ex.created {
		return ex.session.server
	}
	return h.shared
}

// endpointCORS is the endpoint's CORS, for the origins h.origins allowed: a
// browser-based MCP client (an inspector, a docs-site assistant) must be
// able to send the MCP headers and read Mcp-Session-Id and the challenge.
var endpointCORS = cors.NewEndpoint(
	[]string{"POST", "GET", "DELETE"},
	[]string{"Authorization", "X-Agent-Api-Key", "Content-Type", "Accept", "Last-Event-ID", "Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name"},
	[]string{"Mcp-Session-Id", "WWW-Authenticate"},
	10*time.Minute)

// EndpointCORS answers the endpoint's preflights and names an allowed
// origin back (endpointCORS), after CheckOrigin in the route table.
func (h *Handler) EndpointCORS(next http.Handler) http.Handler { return endpointCORS.Middleware(next) }

// ServeHTTP serves the MCP endpoint, once the route table's middleware
// (docs/architecture.md, "Routing": CheckHost, CheckOrigin, EndpointCORS)
// let the request through.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	delete(r.Header, headerExchange) // Header.Del without canonicalizing a constant
	switch r.Method {
	case http.MethodPost:
		h.servePOST(w, r)
	case http.MethodGet, http.MethodDelete:
		h.serveSession(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeRefusal(w, refuse(http.StatusMethodNotAllowed, codeInvalidRequest, "use POST (GET and DELETE address a session)"), nil)
	}
}

// servePOST serves one client message.
func (h *Handler) servePOST(w http.ResponseWriter, r *http.Request) {
	// The credential before the body, as on the HTTP tool routes: a
	// refusal carries no JSON-RPC id (none was read), and a refused caller
	// gets no 100 Continue.
	ref := &refusal{}
	c, ok := h.authenticate(w, r, ref)
	if !ok {
		h.traceRefused(r, ref)
		return
	}
	msg, ref := readMessage(r, h.cfg.MaxBodyBytes)
	if ref != nil {
		writeRefusal(w, ref, nil)
		h.traceRefused(r, ref)
		return
	}
	w, r, tw := h.traceMessage(w, r, msg) // the request's span: mcp/trace.go
	ex := &exchange{caller: c, msg: msg, r: r, trace: tw}
	defer endTrace(tw, ex)
	if msg.stateless(r.Header) {
		if h.serveFast(w, r, ex) || refuseRemoved(w, msg) {
			return
		}
		h.serve(h.stateless, w, r, ex)
		return
	}
	if ex.session, ref = h.sessionFor(r, msg, c); ref != nil {
		ref.id = msg.ID
		writeRefusal(w, ref, refusalData(ref))
		return
	}
	ex.created = headerGet(r.Header, headerSessionID) == ""
	if ex.created {
		h.serve(h.stateful, w, r, ex)
		h.adopt(ex.session)
		h.baseline(r.Context(), ex.session)
		return
	}
	ex.session.begin()
	defer ex.session.end()
	if msg.Method == "notifications/cancelled" {
		h.inflight.cancel(ex.session.id, msg.CancelID)
	}
	if !h.serveSessionFast(w, r, ex) {
		h.serve(h.stateful, w, r, ex)
	}
}

// sessionFor binds a 2025-* message to its session, or opens one for an
// initialize. Any other message without a session is refused (the
// transport's rule for servers that use sessions).
func (h *Handler) sessionFor(r *http.Request, msg *message, c Caller) (*session, *refusal) {
	if id := r.Header.Get(headerSessionID); id != "" {
		return h.bind(id, c)
	}
	if msg.Method != "initialize" {
		return nil, refuse(http.StatusBadRequest, codeInvalidRequest,
			"Mcp-Session-Id is required: initialize first, or use protocol revision "+revisionStateless)
	}
	return h.open(c, r)
}

// serveSession serves GET (the session's server-to-client stream) and
// DELETE (end the session): both act on a session, so both need its owner.
func (h *Handler) serveSession(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(headerProtocolVersion) >= revisionStateless {
		sw := newSDKWriter(w, &exchange{})
		h.stateless.ServeHTTP(sw, r) // no sessions on this revision: 405 with Allow: POST
		sw.finish()
		return
	}
	c, ok := h.authenticate(w, r, &refusal{})
	if !ok {
		return
	}
	ex := &exchange{caller: c, r: r}
	if id := r.Header.Get(headerSessionID); id != "" {
		var ref *refusal
		if ex.session, ref = h.bind(id, c); ref != nil {
			writeRefusal(w, ref, refusalData(ref))
			return
		}
		if r.Method == http.MethodGet { // a client listening is evicted last (sessionTable.reserve)
			ex.session.listen()
			defer ex.session.unlisten()
		}
	}
	h.serve(h.stateful, w, r, ex) // without a session the SDK refuses with 400
}

// serve hands an admitted request to one of the SDK handlers, through an
// sdkWriter: the SDK's plain-text refusals come out as JSON-RPC errors,
// and a tools/call's stream waits for the call's admission.
func (h *Handler) serve(sdk http.Handler, w http.ResponseWriter, r *http.Request, ex *exchange) {
	ex.out = newSDKWriter(w, ex)
	r, release := h.exchanges.open(r, ex)
	defer release()
	sdk.ServeHTTP(ex.out, r)
	ex.out.finish()
}

// refusalData names the protocol code of a session refusal, so an agent
// can tell "start again" from "not yours".
func refusalData(ref *refusal) *errorData {
	switch ref.status {
	case http.StatusForbidden:
		return &errorData{Code: "session_forbidden"}
	case http.StatusNotFound:
		return &errorData{Code: "session_expired"}
	case http.StatusTooManyRequests:
		return &errorData{Code: "rate_limited"}
	}
	return nil
}

// Close ends every open session (the gate is shutting down or reloading
// its configuration); their clients will initialize again.
func (h *Handler) Close() {
	for _, s := range h.sessions.all() {
		if _, ss := s.snapshot(); ss != nil {
			_ = ss.Close()
		}
		h.sessions.remove(s)
	}
}

// Sessions is the number of open sessions (for metrics).
func (h *Handler) Sessions() int { return h.sessions.len() }
