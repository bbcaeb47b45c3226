package gateway

import (
	"context"
	"net/http"
	"reflect"
	"strings"

	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/protocol"
)

// RouteSet is a family of routes another package serves through this
// gateway's pipeline (package meiliroutes: the Meilisearch-compatible
// routes). Its calls take every check of the protocol's routes, in the same
// order, and are audited the same way; only the bodies are the set's own.
type RouteSet struct {
	// Prefix holds every route of the set (it ends in "/"). A path under
	// it, or the prefix without its slash, that names no route is answered
	// NotFound in the set's error shape.
	Prefix   string
	NotFound string
	Routes   []Route
	// ErrorBody is a refusal's body in the set's shape; the status and the
	// headers (Allow, WWW-Authenticate, rate limits) are the protocol's.
	ErrorBody func(err error, pe *protocol.Error) any
	// ErrorType is ErrorBody's Go type, for the OpenAPI document.
	ErrorType reflect.Type
}

// Route is one POST route of a RouteSet.
type Route struct {
	// Endpoint is the path, a ServeMux pattern: a segment in braces
	// ({indexUid}) matches any one non-empty segment, which the call reads
	// as Call.PathID.
	Endpoint string
	Tool     string // the tool the policy is asked about
	Action   string // read | write
	Answer   bool   // an /answer/* route: people (anonymous or SSO) and agents
	// Decode strictly decodes a body; a refusal is a *protocol.Error.
	Decode func(body []byte) (Request, error)
	// Run does the route's work once the policy allowed the call.
	Run func(ctx context.Context, c *Call) (protocol.Result, error)
	// Response is the Go type Run answers, for the OpenAPI document.
	Response reflect.Type
}

// Request is a decoded body of a RouteSet's route: the standard fields the
// policy reads, and its own checks (run before the decision).
type Request interface {
	Standard() *protocol.Standard
	Validate() error
}

// Call is what a RouteSet's route sees of its call once it is decided.
type Call struct {
	g *Gateway
	c *call
}

// PathID is the segment the route's braces matched; "" when it has none.
func (c *Call) PathID() string { return c.c.pathID }

// Request is the call's decoded and validated body.
func (c *Call) Request() Request { return c.c.req.(setRequest).Request }

// Scope is the decided scope: every search runs inside it.
func (c *Call) Scope() protocol.Scope { return c.c.decision.Scope }

// Index is the one search index callers may name: the gate's own (its
// configured index, else the decision's).
func (c *Call) Index() string {
	if c.g.cfg.SearchIndex != "" {
		return c.g.cfg.SearchIndex
	}
	return c.c.decision.Index
}

// Search calls the search backend, recorded in the call's audit record; a
// failure is the protocol's search_unavailable.
func (c *Call) Search(ctx context.Context, p meili.SearchParams) (*meili.SearchResponse, error) {
	return c.g.search(ctx, c.c, p)
}

// Dropped records n out-of-scope hits the route held back.
func (c *Call) Dropped(n int) { c.c.rec.Dropped += n }

// setRequest is a RouteSet's Request as the pipeline reads it.
type setRequest struct{ Request }

func (r setRequest) standard() *protocol.Standard { return r.Standard() }
func (r setRequest) validate() error              { return r.Validate() }
func (r setRequest) pages() []string              { return nil }

// setRoutes are the internal routes of the gateway's route sets.
func (g *Gateway) setRoutes() []route {
	var rs []route
	for i := range g.deps.Routes {
		set := &g.deps.Routes[i]
		for _, sr := range set.Routes {
			rs = append(rs, g.setRoute(set, sr))
		}
	}
	return rs
}

func (g *Gateway) setRoute(set *RouteSet, sr Route) route {
	return route{
		endpoint: sr.Endpoint, tool: sr.Tool, action: sr.Action, answer: sr.Answer,
		errorBody: set.ErrorBody, errorType: set.ErrorType, response: sr.Response,
		decode: func(body []byte) (request, error) {
			req, err := sr.Decode(body)
			if err != nil {
				return nil, err
			}
			return setRequest{req}, nil
		},
		run: func(ctx context.Context, c *call) (protocol.Result, error) { return sr.Run(ctx, &Call{g: g, c: c}) },
	}
}

// unknownInSet answers a path under a route set's prefix that names none of
// its routes, in the set's error shape: a client of that API reads its
// shape, and is told which routes the prefix serves.
func (g *Gateway) unknownInSet(w http.ResponseWriter, path string) (*protocol.Error, bool) {
	for _, set := range g.deps.Routes {
		if strings.HasPrefix(path, set.Prefix) || path == strings.TrimSuffix(set.Prefix, "/") {
			pe := protocol.NewError(protocol.CodeNotFound, set.NotFound)
			writeErrorBody(w, pe, set.ErrorBody(pe, pe))
			return pe, true
		}
	}
	return nil, false
}
