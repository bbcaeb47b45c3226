// Package h1 is an HTTP/1.1 client transport for plain-HTTP backends in
// which the calling goroutine writes the request and reads the response
// itself. net/http's Transport gives every connection two goroutines (a
// reader and a writer) and hands each request and response between them
// and the caller over channels; for a gate making two small backend calls
// an ask, those hand-offs and the scheduling around them cost about as
// much as the calls' system calls (bench/README.md, "The direct HTTP/1.1
// client"). The request is written with net/http's own Request.Write and
// the response read with http.ReadResponse, so the wire format is
// net/http's; what this package adds is the connection's life: a bounded
// idle pool whose connections are checked before reuse, the request's
// context ending a dial, write or read, and one retry, on net/http's
// rules, of a request a reused connection lost.
//
// Whatever it does not serve (https, a proxy, an upgrade, Expect, a body
// that cannot be sent twice) goes to a fallback http.RoundTripper.
package h1

import (
	"bufio"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Options configure a Transport. Zero values take the defaults named.
type Options struct {
	// Fallback serves the requests this transport does not (required).
	Fallback http.RoundTripper
	// Proxy is consulted for every request; a request with a proxy goes
	// to Fallback. Nil: http.ProxyFromEnvironment.
	Proxy func(*http.Request) (*url.URL, error)
	// Dialer dials new connections. Nil: a 3 s timeout and a 30 s TCP
	// keep-alive.
	Dialer *net.Dialer
	// MaxIdleConns bounds idle connections in total (512), and
	// MaxIdleConnsPerHost per host:port (256).
	MaxIdleConns, MaxIdleConnsPerHost int
	// IdleConnTimeout closes a connection idle for longer (90 s).
	IdleConnTimeout time.Duration
	// MaxResponseHeaderBytes bounds what is read from the connection
	// before a response's header ends, 1xx responses included (64 KiB).
	MaxResponseHeaderBytes int64
	// ReadBufferSize and WriteBufferSize size a connection's buffers
	// (32 KiB each).
	ReadBufferSize, WriteBufferSize int
}

// Transport is an http.RoundTripper; safe for concurrent use.
type Transport struct {
	fallback  http.RoundTripper
	proxy     func(*http.Request) (*url.URL, error)
	dialer    *net.Dialer
	maxHeader int64
	rbuf      int
	wbuf      int
	pool      pool
}

// New returns a Transport configured by o.
func New(o Options) *Transport {
	t := &Transport{
		fallback:  o.Fallback,
		proxy:     o.Proxy,
		dialer:    o.Dialer,
		maxHeader: orDefault(o.MaxResponseHeaderBytes, 64<<10),
		rbuf:      orDefault(o.ReadBufferSize, 32<<10),
		wbuf:      orDefault(o.WriteBufferSize, 32<<10),
	}
	if t.proxy == nil {
		t.proxy = http.ProxyFromEnvironment
	}
	if t.dialer == nil {
		t.dialer = &net.Dialer{Timeout: 3 * time.Second, KeepAlive: 30 * time.Second}
	}
	t.pool.init(orDefault(o.MaxIdleConns, 512), orDefault(o.MaxIdleConnsPerHost, 256),
		orDefault(o.IdleConnTimeout, 90*time.Second))
	return t
}

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// RoundTrip sends req on a connection of its own (idle or new) when the
// transport serves it, else through the fallback.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	key, ok := t.serves(req)
	if !ok {
		return t.fallback.RoundTrip(req)
	}
	return t.roundTrip(req, key)
}

// CloseIdleConnections closes the idle connections of this transport and
// of the fallback (http.Client.CloseIdleConnections calls it).
func (t *Transport) CloseIdleConnections() {
	t.pool.closeAll()
	if c, ok := t.fallback.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// serves reports whether req is a plain HTTP/1.1 exchange this transport
// sends itself, and the host:port its connections are pooled under: an
// http URL with a host, no proxy, no CONNECT, upgrade, Expect (100-continue
// needs a read while the body is written) or trailers, and a body that can
// be sent again (GetBody) or none, so a retry never depends on net/http's
// rules for bodies sent once.
func (t *Transport) serves(req *http.Request) (string, bool) {
	u := req.URL
	if u == nil || u.Scheme != "http" || u.Host == "" || req.Method == http.MethodConnect {
		return "", false
	}
	h := req.Header
	if len(h["Upgrade"]) > 0 || len(h["Expect"]) > 0 || len(req.Trailer) > 0 {
		return "", false
	}
	if !replayable(req) {
		return "", false
	}
	if p, err := t.proxy(req); p != nil || err != nil {
		return "", false
	}
	return hostKey(u), true
}

// replayable: the request has no body or can make it again.
func replayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// hostKey is u's host with the port, 80 when the URL names none.
func hostKey(u *url.URL) string {
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(host, port)
}

// wantsClose: the request asked for its connection to be closed after it.
func wantsClose(req *http.Request) bool {
	if req.Close {
		return true
	}
	for _, v := range req.Header["Connection"] {
		for _, tok := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "close") {
				return true
			}
		}
	}
	return false
}

// newBuffers makes a connection's buffers.
func (t *Transport) newBuffers(c *conn) {
	c.br = bufio.NewReaderSize(c, t.rbuf)
	c.bw = bufio.NewWriterSize(c, t.wbuf)
}
