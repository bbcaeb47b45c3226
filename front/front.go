// Package front is the gate's route table (docs/architecture.md,
// "Routing"): every entry the gate serves, the gateway's routes, the MCP
// endpoint and its metadata documents, the widget's files, and the
// middleware each goes through (the cors block's CORS, MCP's Host and
// Origin checks and its own CORS, the audit file's hold), declared in one
// place and served by one router. The Caddy module builds it once per
// configuration and hands it every request.
package front

import (
	"net/http"
	"strings"

	"github.com/wikigate/wikigate/cors"
	"github.com/wikigate/wikigate/mcp"
	"github.com/wikigate/wikigate/router"
	"github.com/wikigate/wikigate/widget"
)

// Gateway is what the table takes of the gateway (gateway.Gateway): its
// entries, and the audited JSON 404 every other path gets.
type Gateway interface {
	Entries() []router.Entry
	NotFound() http.Handler
}

// Parts are what the gate serves; a nil part is not served.
type Parts struct {
	Gateway Gateway
	MCP     *mcp.Handler    // the mcp block
	Widget  *widget.Handler // the widget block
	CORS    *cors.Policy    // the cors block
	// Hold wraps the gateway's calls: with a sync audit file, their answer
	// waits for their audit record. nil holds nothing.
	Hold router.Middleware
}

// New is the router of the gate's table.
func New(p Parts) (*router.Router, error) {
	entries, fallback := Table(p)
	return router.New(entries, fallback)
}

// Table is the gate's route table and its fallback. The cors block's CORS
// wraps everything, the fallback included, as its path prefixes say: a
// page's preflight is answered before any route, even one that does not
// exist. MCP's Host and Origin checks (DNS-rebinding protection) come
// before the endpoint's own CORS, so a refused page learns nothing.
func Table(p Parts) ([]router.Entry, http.Handler) {
	es := router.Wrap(p.Gateway.Entries(), p.Hold)
	if m := p.MCP; m != nil {
		es = append(es, router.Entry{Pattern: router.Exact(m.Config().Path),
			Handler: router.Chain(m, m.CheckHost, m.CheckOrigin, m.EndpointCORS)})
		for _, path := range m.MetadataPaths() {
			es = append(es, router.Entry{Pattern: router.Exact(path), Handler: router.Chain(m.Metadata(), m.CheckMetadataHost)})
		}
	}
	es = append(es, widgetEntries(p.Widget)...)
	fallback := router.Chain(p.Gateway.NotFound(), p.CORS.Middleware, p.Hold)
	return router.Wrap(es, p.CORS.Middleware), fallback
}

// widgetEntries are the component's file, and the demo page's paths when
// it is on; the widget answers their methods itself, as a file server.
func widgetEntries(h *widget.Handler) []router.Entry {
	if h == nil {
		return nil
	}
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.Serve(w, r) })
	es := []router.Entry{{Pattern: router.Exact(widget.ScriptPath), Handler: serve}}
	if h.Demo {
		es = append(es, router.Entry{Pattern: router.Exact(widget.DemoPath), Handler: serve},
			router.Entry{Pattern: router.Exact(strings.TrimSuffix(widget.DemoPath, "/")), Handler: serve})
	}
	return es
}
