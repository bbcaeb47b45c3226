package h1

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"syscall"
	"time"
)

// conn is one connection: owned by the request using it, or idle in the
// pool, never both. Its reader counts and bounds what is read (the header
// limit; whether any byte of an answer arrived) and its writer counts what
// the socket took (whether any byte of the request left).
type conn struct {
	nc       net.Conn
	br       *bufio.Reader
	bw       *bufio.Writer
	key      string
	limit    int64 // bytes the reader may still read (the header bound)
	nread    int64 // bytes read during the current exchange
	nwritten int64 // bytes the socket took during the current exchange
	reused   bool  // it served an exchange before this one
	idleAt   time.Time

	// The idle check (alive): the socket's raw access (nil: a connection
	// that has none, taken as open) and the peek's function, made once
	// per connection so that a check allocates nothing.
	rc      syscall.RawConn
	peekFn  func(fd uintptr) bool
	peekBuf [1]byte
	peekErr error
}

// errHeaderLimit is what the reader returns past the header bound.
var errHeaderLimit = errors.New("h1: header read limit exhausted")

// Read reads from the connection within c.limit (bufio.Reader's source).
func (c *conn) Read(p []byte) (int, error) {
	if c.limit <= 0 {
		return 0, errHeaderLimit
	}
	if int64(len(p)) > c.limit {
		p = p[:c.limit]
	}
	n, err := c.nc.Read(p)
	c.limit -= int64(n)
	c.nread += int64(n)
	return n, err
}

// Write writes to the connection, counting what the socket took
// (bufio.Writer's destination).
func (c *conn) Write(p []byte) (int, error) {
	n, err := c.nc.Write(p)
	c.nwritten += int64(n)
	return n, err
}

// alive reports whether an idle connection can carry a request: nothing
// unread in its buffer and, on the socket, neither an end, an error nor a
// byte the server sent unasked (a stale answer). net/http's Transport
// learns this from a reader goroutine per connection; this transport has
// none, so it looks once, without blocking, when it takes the connection
// from the pool: a server that closed the connection while it sat idle is
// found here, before a request is written that it might half receive.
func (c *conn) alive() bool {
	if c.br.Buffered() > 0 {
		return false
	}
	if c.rc == nil {
		return true
	}
	if err := c.rc.Read(c.peekFn); err != nil {
		return false
	}
	return c.peekSaysIdle()
}

// abort makes every pending and later read and write on c fail at once:
// the request's context ended (context.AfterFunc).
func (c *conn) abort() { _ = c.nc.SetDeadline(time.Unix(1, 0)) }

func (c *conn) close() { _ = c.nc.Close() }

// dial opens a new connection to key under ctx.
func (t *Transport) dial(ctx context.Context, key string) (*conn, error) {
	nc, err := t.dialer.DialContext(ctx, "tcp", key)
	if err != nil {
		return nil, ctxErr(ctx, err)
	}
	c := &conn{nc: nc, key: key}
	if sc, ok := nc.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			c.rc, c.peekFn = rc, c.peek
		}
	}
	t.newBuffers(c)
	return c, nil
}

// ctxErr is the request context's cause when it has ended (what net/http
// returns for a request whose context ended: errors.Is holds for
// context.Canceled or context.DeadlineExceeded), else err.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// roundTrip sends req on an idle connection to key or a new one. An idle
// connection is checked before it is used (pool.get, conn.alive); one that
// still fails is retried once on a new connection, with the body made
// again, when mayRetry allows it.
func (t *Transport) roundTrip(req *http.Request, key string) (*http.Response, error) {
	ctx := req.Context()
	c := t.pool.get(key)
	if c == nil {
		var err error
		if c, err = t.dial(ctx, key); err != nil {
			closeBody(req)
			return nil, err
		}
	}
	resp, err := t.exchange(ctx, c, req)
	if err == nil || !c.reused || ctx.Err() != nil || !mayRetry(c, req, err) {
		return resp, err
	}
	again, gerr := rewind(req)
	if gerr != nil {
		return nil, err
	}
	if c, gerr = t.dial(ctx, key); gerr != nil {
		closeBody(again)
		return nil, gerr
	}
	resp, err = t.exchange(ctx, c, again)
	if resp != nil {
		resp.Request = req
	}
	return resp, err
}

// mayRetry: the exchange of req on the reused connection c failed with err
// in a way that sending req again on a new connection cannot do twice what
// the caller asked once, by net/http's Transport's rules: the socket took
// no byte of the request (every request this transport serves has a body
// it can make again), or no byte of an answer arrived, the connection was
// lost (end of stream, reset, broken pipe) and req is one a server may see
// twice (idempotent). A POST the server read before it closed may have
// been acted on (a document stored): it is not sent again.
func mayRetry(c *conn, req *http.Request, err error) bool {
	if c.nwritten == 0 {
		return true
	}
	return c.nread == 0 && idempotent(req) && lostConn(err)
}

// idempotent is net/http's test (Request.isReplayable, given a body that
// can be made again): a GET, HEAD, OPTIONS or TRACE, or a request carrying
// an Idempotency-Key or X-Idempotency-Key header, which says the server
// takes it twice as once.
func idempotent(req *http.Request) bool {
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	_, key := req.Header["Idempotency-Key"]
	_, xkey := req.Header["X-Idempotency-Key"]
	return key || xkey
}

// rewind is req with its body made again, for a retry.
func rewind(req *http.Request) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	r := *req
	r.Body = body
	return &r, nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// lostConn: err is how a connection the server closed fails (end of
// stream, reset, broken pipe).
func lostConn(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNABORTED)
}

// exchange writes req on c and reads the response's header. On success
// the response's body owns c (and returns it to the pool or closes it);
// on failure c is closed.
func (t *Transport) exchange(ctx context.Context, c *conn, req *http.Request) (*http.Response, error) {
	stop := context.AfterFunc(ctx, c.abort)
	c.nread, c.nwritten = 0, 0
	err := req.Write(c.bw)
	if err == nil {
		err = c.bw.Flush()
	}
	if err != nil {
		stop()
		c.close()
		return nil, ctxErr(ctx, fmt.Errorf("h1: writing request: %w", err))
	}
	resp, err := t.readResponse(c, req)
	if err != nil {
		stop()
		c.close()
		return nil, ctxErr(ctx, err)
	}
	b := &body{t: t, c: c, ctx: ctx, stop: stop, keep: !resp.Close && !wantsClose(req)}
	if resp.Body == http.NoBody {
		b.release(b.keep)
		return resp, nil
	}
	b.rc = resp.Body
	resp.Body = b
	return resp, nil
}

// readResponse reads the response's header, skipping 1xx informational
// responses as net/http does; what is read before the final header is
// bounded by t.maxHeader.
func (t *Transport) readResponse(c *conn, req *http.Request) (*http.Response, error) {
	c.limit = t.maxHeader
	defer func() { c.limit = math.MaxInt64 }()
	for {
		resp, err := http.ReadResponse(c.br, req)
		if err != nil {
			if c.limit <= 0 || errors.Is(err, errHeaderLimit) {
				return nil, fmt.Errorf("h1: server response headers exceeded %d bytes; aborted", t.maxHeader)
			}
			return nil, fmt.Errorf("h1: reading response: %w", err)
		}
		if resp.StatusCode >= 200 {
			return resp, nil
		}
		if resp.StatusCode == http.StatusSwitchingProtocols {
			return nil, errors.New("h1: unexpected 101 Switching Protocols")
		}
		// A 1xx has no body: the final response follows.
	}
}
