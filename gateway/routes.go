package gateway

import (
	"context"

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
	run      func(ctx context.Context, c *call) (any, error)
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
		{endpoint: "/agent/tools/search", tool: "search", action: "read", decode: decodeSearch, run: g.runSearch},
		{endpoint: "/agent/tools/get_page", tool: "get_page", action: "read", decode: decodeGetPage, run: g.runGetPage},
	}
	if g.deps.Answers != nil {
		rs = append(rs,
			route{endpoint: "/agent/tools/ask", tool: "ask", action: "read", decode: decodeAsk, run: g.runAsk},
			route{endpoint: "/answer/ask", tool: "ask", action: "read", answer: true, decode: decodeAsk, run: g.runAsk},
			route{endpoint: "/agent/tools/get_context", tool: "get_context", action: "read", decode: decodeGetContext, run: g.runGetContext},
		)
	}
	m := make(map[string]route, len(rs))
	for _, r := range rs {
		m[r.endpoint] = r
	}
	return m
}
