package gateway

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/wikigate/wikigate/router"
)

// Entries are the gateway's lines of the gate's route table
// (docs/architecture.md, "Routing"): /healthz, /openapi.json when the gate
// serves it, and every route of routeTable (the protocol's, the route
// sets', a session's and a stream's with their path wildcard). A route's
// other methods reach the same handler: the pipeline's first check refuses
// them, audited like any call, with the protocol's 405 and Allow
// (docs/protocol.md, "Order of checks").
func (g *Gateway) Entries() []router.Entry {
	health := g.withRequestID(func(w http.ResponseWriter, r *http.Request, _ string) { g.serveHealth(w, r) })
	es := []router.Entry{{Pattern: "/healthz", Handler: health}}
	if g.deps.OpenAPI != nil {
		doc := g.withRequestID(g.serveOpenAPI)
		es = append(es, router.Entry{Method: http.MethodGet, Pattern: openAPIPath, Handler: doc, OtherMethods: doc})
	}
	for _, endpoint := range slices.Sorted(maps.Keys(g.routes)) {
		rt := g.routes[endpoint]
		h := g.withRequestID(g.serveRoute(rt))
		es = append(es, router.Entry{Method: rt.method(), Pattern: endpoint, Handler: h, OtherMethods: h})
	}
	return es
}

// NotFound is the table's fallback: a path no entry serves is the
// protocol's 404 (or a route set's own under its prefix), audited.
func (g *Gateway) NotFound() http.Handler { return g.withRequestID(g.serveUnknown) }

// withRequestID names every answer of the gateway with a fresh request id,
// which its audit record and error body carry too, so a caller can quote
// it.
func (g *Gateway) withRequestID(serve func(w http.ResponseWriter, r *http.Request, reqID string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqID := requestID()
		w.Header().Set("X-Request-Id", reqID)
		serve(w, r, reqID)
	})
}

// serveRoute answers one route: outside the POST pipeline (its serve), as
// a stream when the caller asked for one, or as a JSON call. The path
// wildcard's value, if the route has one, is the call's path id.
func (g *Gateway) serveRoute(rt route) func(w http.ResponseWriter, r *http.Request, reqID string) {
	name := wildcard(rt.endpoint)
	return func(w http.ResponseWriter, r *http.Request, reqID string) {
		pathID := ""
		if name != "" {
			pathID = r.PathValue(name)
		}
		switch {
		case rt.serve != nil:
			rt.serve(w, r, reqID, pathID, rt)
		case wantsStream(rt, r):
			g.serveStream(w, r, reqID, pathID, rt)
		default:
			g.serveCall(w, r, reqID, pathID, rt)
		}
	}
}

// wildcard is the name of the pattern's {wildcard} segment; "" without one.
func wildcard(pattern string) string {
	_, rest, ok := strings.Cut(pattern, "{")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "}")
	return name
}
