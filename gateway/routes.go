package gateway

import (
	"context"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/wikigate/wikigate/protocol"
)

// route describes one protocol route: which credential it takes, which tool
// the policy is asked about, and the handler that runs once allowed.
type route struct {
	endpoint string
	tool     string
	action   string // read | write
	answer   bool   // /answer/* routes: humans (anonymous or SSO) and agents
	decode   func(body []byte) (request, error)
	// bind, when set, runs after the request is validated and before the
	// policy decides: session turns load and authorize their session here.
	bind func(ctx context.Context, r *http.Request, c *call) error
	run  func(ctx context.Context, c *call) (protocol.Result, error)
	// serve, when set, answers the route outside the POST pipeline
	// (serveCall): the session history is a GET.
	serve func(w http.ResponseWriter, r *http.Request, reqID, pathID string, rt route)
	// errorBody, when set, is a refusal's body in a route set's own shape
	// (RouteSet.ErrorBody); nil is the protocol's envelope.
	errorBody func(err error, pe *protocol.Error) any
	errorType reflect.Type // errorBody's type, for RouteDocs
	response  reflect.Type // a route set's answer type, for RouteDocs
}

// request is what every decoded body offers the shared pipeline.
type request interface {
	standard() *protocol.Standard
	validate() error
	pages() []string // get_page paths (normalized); nil elsewhere
}

// routeTable lists the routes this gate serves. A protocol tool whose handler
// is not built yet is absent, so it is a plain 404.
func (g *Gateway) routeTable() map[string]route {
	rs := []route{
		{endpoint: "/agent/tools/search", tool: "search", action: "read", decode: decodeAs[searchRequest], run: g.runSearch},
		{endpoint: "/agent/tools/get_page", tool: "get_page", action: "read", decode: decodeAs[getPageRequest], run: g.runGetPage},
		{endpoint: "/answer/search", tool: "search", action: "read", answer: true, decode: decodeAs[searchRequest], run: g.runSearch},
	}
	rs = append(rs, g.setRoutes()...)
	if g.deps.Answers != nil {
		rs = append(rs,
			route{endpoint: "/agent/tools/ask", tool: "ask", action: "read", decode: decodeAs[askRequest], run: g.runAsk},
			route{endpoint: "/answer/ask", tool: "ask", action: "read", answer: true, decode: decodeAs[askRequest], run: g.runAsk},
			route{endpoint: "/agent/tools/get_context", tool: "get_context", action: "read", decode: decodeAs[getContextRequest], run: g.runGetContext},
			route{endpoint: streamResumePattern, tool: "ask", action: "read", answer: true, serve: g.serveResume},
		)
	}
	if g.deps.Answers != nil && g.deps.Sessions != nil {
		rs = append(rs,
			route{endpoint: "/answer/sessions", tool: "ask", action: "read", answer: true, decode: decodeAs[sessionCreateRequest], run: g.runSessionCreate},
			route{endpoint: sessionTurnsPattern, tool: "ask", action: "read", answer: true, decode: decodeAs[askRequest], bind: g.bindSession, run: g.runSessionTurn},
			route{endpoint: sessionHistoryPattern, tool: "ask", action: "read", answer: true, serve: g.serveSessionHistory},
		)
	}
	if g.deps.Feedback != nil {
		rs = append(rs,
			route{endpoint: "/agent/tools/create_feedback", tool: "create_feedback", action: "write", decode: decodeAs[feedbackRequest], run: g.runFeedback},
			route{endpoint: "/agent/tools/create_improvement_task", tool: "create_improvement_task", action: "write", decode: decodeAs[feedbackRequest], run: g.runFeedback},
			g.peopleFeedbackRoute(g.feedbackLimits),
		)
	}
	m := make(map[string]route, len(rs))
	for _, r := range rs {
		m[r.endpoint] = r
	}
	return m
}

// method is the one method the route serves: GET for the routes that
// answer outside the POST pipeline (a session's history, a stream's
// resume), POST for every other.
func (rt route) method() string {
	if rt.serve != nil {
		return http.MethodGet
	}
	return http.MethodPost
}

// decodeAs strictly decodes a body into the route's request type.
func decodeAs[T any, P interface {
	*T
	request
}](body []byte) (request, error) {
	p := P(new(T))
	if err := protocol.Decode(body, p); err != nil {
		return nil, err
	}
	return p, nil
}

// validSessionID is the shape of the ids sessions.New mints.
var validSessionID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// sessionTurnsPattern is the route that adds a turn to a session.
const sessionTurnsPattern = "/answer/sessions/{sessionId}/turns"

// serveUnknown answers a path that is no route with the protocol's 404 and
// audits it like any call, without reading the body or checking a
// credential, so probes of the gate show in the audit log.
func (g *Gateway) serveUnknown(w http.ResponseWriter, r *http.Request, reqID string) {
	rec := g.startRecord(reqID, unknownEndpoint(r.URL.Path), r)
	defer g.finish(r.Context(), rec)
	if pe, ok := g.unknownInSet(w, r.URL.Path); ok {
		rec.Fail(pe)
		return
	}
	pe := protocol.NewError(protocol.CodeNotFound, "no such route: see the protocol's /answer/* and /agent/tools/* routes")
	rec.Fail(pe)
	writeError(w, reqID, pe)
}

// maxAuditedPath bounds the caller-chosen path an unknown route is audited
// under.
const maxAuditedPath = 256

// unknownEndpoint is the path as the caller sent it, valid UTF-8 and cut to
// maxAuditedPath bytes.
func unknownEndpoint(path string) string { return CutUTF8(path, maxAuditedPath) }

// CutUTF8 is s as valid UTF-8, cut to at most max bytes on a rune boundary
// (with an ellipsis when cut), so caller-chosen text stays small in logs.
func CutUTF8(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
