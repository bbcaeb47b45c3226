package mcp

import (
	"context"
	"crypto/rand"
	"net/http"
	"sync"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerExchange carries, from this package's front to its SDK handlers,
// the key of the request's exchange. The SDK hands a handler the HTTP
// header of the request that carried the message (RequestExtra.Header) but
// not its context (a session's handlers run on the session's context), so
// the header is the only per-request path; inbound values are deleted
// before the key is set, so a client cannot name another request's
// exchange.
const headerExchange = "X-Wikigate-Mcp-Exchange"

// exchange is what one authenticated HTTP request brings to the MCP
// handlers: the caller and the message as the front checked them.
type exchange struct {
	caller  Caller
	msg     *message
	r       *http.Request
	session *session     // the bound session (2025-* revisions); nil when stateless
	created bool         // this request's initialize creates session
	out     *sdkWriter   // what the SDK writes to (serve); nil on the fast paths
	trace   *traceWriter // the request's span's view of the answer; nil when not traced
}

// admitted tells the exchange's writer that the gate admitted the call
// (Gate.Call's CallMeta.Admitted), so the held stream may start.
func (ex *exchange) admitted() {
	if ex.out != nil {
		ex.out.admitted()
	}
}

type exchangeKey struct{}

// exchanges are the requests in flight, by key.
type exchanges struct{ m sync.Map }

// open registers ex for r's lifetime and returns the request to hand to
// the SDK and the release to defer.
func (x *exchanges) open(r *http.Request, ex *exchange) (*http.Request, func()) {
	key := rand.Text()
	r = r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex))
	r.Header.Set(headerExchange, key)
	x.m.Store(key, ex)
	return r, func() { x.m.Delete(key) }
}

// of finds the exchange of the request that carried req.
func (x *exchanges) of(req mcpsdk.Request) *exchange {
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil {
		return nil
	}
	key := extra.Header.Get(headerExchange)
	if key == "" {
		return nil
	}
	v, ok := x.m.Load(key)
	if !ok {
		return nil
	}
	return v.(*exchange)
}

// exchangeOf finds the exchange from the request the SDK passes to
// getServer, which keeps the front's context.
func exchangeOf(r *http.Request) *exchange {
	ex, _ := r.Context().Value(exchangeKey{}).(*exchange)
	return ex
}
