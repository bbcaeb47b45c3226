package backend

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/wikigate/wikigate/backend/h1"
	"github.com/wikigate/wikigate/telemetry"
)

// HTTPClient is the transport every backend client uses by default: bounded
// dials and handshakes, enough idle connections per host for a busy gate
// (Go's default keeps 2, so concurrent calls would keep reconnecting; room
// for many more than a steady load keeps busy, so a burst's connections are
// kept for the next one instead of closed), buffers that hold a whole
// request and response (a prompt is ~5 KB: with Go's 4 KB buffer every
// completion request took two write calls, and a retrieval's body several
// reads) and no redirects:
// a redirect is not part of either contract, and following one could send
// the key elsewhere (the 3xx is reported as a bad response). When the
// call is traced, each request gets a client span and carries its W3C
// traceparent (telemetry.Transport; docs/operators.md, Tracing).
//
// A plain-HTTP request with no proxy goes through h1, a client whose
// calling goroutine writes and reads the connection itself (net/http's
// transport hands every exchange to two goroutines of the connection's,
// about a fifth of the gate's CPU on an ask; bench/README.md, "The direct
// HTTP/1.1 client"), with the same dial, pool and header bounds; HTTPS, a
// proxied or an unusual request goes through net/http's transport as
// before (docs/backends.md, How the gate talks to backends).
func HTTPClient() *http.Client {
	dialer := &net.Dialer{Timeout: 3 * time.Second, KeepAlive: 30 * time.Second}
	fallback := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            dialer.DialContext,
		TLSHandshakeTimeout:    3 * time.Second,
		MaxIdleConns:           pool.idle,
		MaxIdleConnsPerHost:    pool.idlePerHost,
		IdleConnTimeout:        pool.idleTimeout,
		MaxResponseHeaderBytes: pool.headerBytes,
		WriteBufferSize:        pool.buffer,
		ReadBufferSize:         pool.buffer,
		ForceAttemptHTTP2:      true,
	}
	direct := h1.New(h1.Options{
		Fallback:               fallback,
		Proxy:                  http.ProxyFromEnvironment,
		Dialer:                 dialer,
		MaxIdleConns:           pool.idle,
		MaxIdleConnsPerHost:    pool.idlePerHost,
		IdleConnTimeout:        pool.idleTimeout,
		MaxResponseHeaderBytes: pool.headerBytes,
		WriteBufferSize:        pool.buffer,
		ReadBufferSize:         pool.buffer,
	})
	return &http.Client{
		Transport:     telemetry.Transport(direct),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// pool is the connection settings both transports of HTTPClient share.
var pool = struct {
	idle, idlePerHost int
	idleTimeout       time.Duration
	headerBytes       int64
	buffer            int
}{idle: 512, idlePerHost: 256, idleTimeout: 90 * time.Second, headerBytes: 64 << 10, buffer: 32 << 10}

// requestIDKey is the context key of the gate's request id.
type requestIDKey struct{}

// HeaderRequestID carries the gate's request id to a backend, so the
// backend's logs can be matched with the gate's audit record.
const HeaderRequestID = "X-Request-Id"

// WithRequestID returns ctx carrying the gate's request id for the backend
// calls made under it.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestIDFrom returns the request id WithRequestID put in ctx, or "".
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// SetCallHeaders sets the headers that tie a backend request to the
// gate's call, from req's context: X-Request-Id when the context carries
// the gate's request id, and the W3C trace context when the request is
// made under a traced backend call's span (telemetry.Inject). The
// request's builder calls it, on the request it has just made.
func SetCallHeaders(req *http.Request) {
	if id := RequestIDFrom(req.Context()); id != "" {
		req.Header.Set(HeaderRequestID, id)
	}
	telemetry.Inject(req)
}
