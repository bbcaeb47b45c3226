// Package ragflow is the gate's client for RAGFlow's HTTP API, limited to
// what answering needs: retrieval over the datasets a policy decided,
// generation through RAGFlow's LLM without a chat assistant, and a health
// probe (docs/backends.md, RAGFlow).
//
// Every request body is built from an allow-list, so nothing a client sent
// (kb_ids, doc_ids, knowledge, ...) can reach RAGFlow, and every response is
// read with a size cap and checked against RAGFlow's odd error contract:
// HTTP 200 with code != 0, G1's code-0 authentication failures, SSE error
// events. A backend failure is always an *Error; it is never turned into an
// answer. Calls the gate must never make (no datasets) fail before any request.
package ragflow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/wikigate/wikigate/backend"
)

// Defaults of Config. Retrieval is a search: it answers in well under a
// second when RAGFlow is healthy, so waiting long for it only delays the
// caller's 503. Generation runs an LLM: its first byte may take a while, but
// once it streams, a long silence means it is stuck, whatever the total.
const (
	DefaultRetrievalTimeout = 5 * time.Second
	DefaultFirstByteTimeout = 30 * time.Second
	DefaultIdleTimeout      = 15 * time.Second
	DefaultMaxResponseBytes = 8 << 20
)

// Config configures a Client.
type Config struct {
	// URL is RAGFlow's base URL, e.g. "http://ragflow:9380"; a path prefix
	// is kept ("https://host/ragflow" → "https://host/ragflow/api/v1/...").
	URL string
	// APIKey is sent as "Authorization: Bearer <key>" and never logged.
	APIKey string
	// RetrievalTimeout bounds a retrieval (and the health probe), reading
	// the body included. Default DefaultRetrievalTimeout.
	RetrievalTimeout time.Duration
	// FirstByteTimeout bounds a generation until the first byte of its
	// response body arrives. Default DefaultFirstByteTimeout.
	FirstByteTimeout time.Duration
	// IdleTimeout bounds a generation's silence after its first byte: the
	// longest gap between two reads of the stream (or body). Default
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Timeout, when set, also caps any one call in total. Default none: a
	// generation that keeps streaming is bounded only by the gate's
	// per-call backend deadline.
	Timeout time.Duration
	// MaxResponseBytes caps a response body or a whole stream. Default
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// HTTPClient is used when set (tests, custom transports). The default
	// client does not follow redirects, so the key is only ever sent to URL.
	HTTPClient *http.Client
}

// Client calls one RAGFlow server. It is safe for concurrent use.
type Client struct {
	base       string
	apiKey     string
	authHeader []string // "Bearer <key>", built once: every call sends it
	retrieval  limits   // retrieval and health
	generation limits
	maxBytes   int64
	http       *http.Client

	// The routes' URLs, base and path joined once.
	retrievalURL, completionURL, healthURL string
}

// New checks cfg and returns a Client. It makes no network call.
func New(cfg Config) (*Client, error) {
	base, err := baseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.APIKey == "" {
		return nil, errors.New("ragflow: api key is required")
	}
	c := &Client{base: base, apiKey: cfg.APIKey, maxBytes: cfg.MaxResponseBytes, http: cfg.HTTPClient}
	c.authHeader = []string{"Bearer " + cfg.APIKey}
	c.retrievalURL = base + "/api/v1/retrieval"
	c.completionURL = base + "/api/v1/chat/completions"
	c.healthURL = base + "/api/v1/system/healthz"
	c.retrieval = limits{total: capped(orDefault(cfg.RetrievalTimeout, DefaultRetrievalTimeout), cfg.Timeout)}
	c.generation = limits{
		total:     max(cfg.Timeout, 0),
		firstByte: orDefault(cfg.FirstByteTimeout, DefaultFirstByteTimeout),
		idle:      orDefault(cfg.IdleTimeout, DefaultIdleTimeout),
	}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultMaxResponseBytes
	}
	if c.http == nil {
		c.http = backend.HTTPClient()
	}
	return c, nil
}

// baseURL validates the configured URL (backend.BaseURL) and drops a
// trailing slash.
func baseURL(raw string) (string, error) {
	u, err := backend.BaseURL(raw)
	if err != nil {
		return "", fmt.Errorf("ragflow: %w", err)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

// call is one request in flight: the response and the context whose end
// stops reading it. done must be called once the body has been read.
type call struct {
	resp *http.Response
	ctx  context.Context
	done func()
}

// send performs one request to url (one of the Client's route URLs) under
// lim (see watch). body is JSON-encoded when non-nil; the key is sent only
// when auth is set.
func (c *Client) send(ctx context.Context, method, url string, body any, auth bool, lim limits) (*call, error) {
	ctx, cancel, dog := watch(ctx, lim)
	var rd io.Reader
	if body != nil {
		b, err := encodeBody(body)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("ragflow: encoding request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("ragflow: building request: %w", err)
	}
	// Canonical keys set directly: what Header.Set stores, without
	// canonicalising the same two names on every call. The slices are
	// fresh or never written (authHeader), as a transport may read them
	// while the next call is built.
	if body != nil {
		req.Header["Content-Type"] = []string{"application/json"}
	}
	if auth {
		req.Header["Authorization"] = c.authHeader
	}
	backend.SetCallHeaders(req)
	resp, err := c.http.Do(req)
	if err != nil {
		cancel()
		return nil, c.transportError(ctx, err)
	}
	resp.Body = watchBody(dog, resp.Body)
	return &call{resp: resp, ctx: ctx, done: cancel}, nil
}

func (cl *call) close() {
	_ = cl.resp.Body.Close()
	cl.done()
}

// Bounds of drainRest: RAGFlow ends a stream's response right after its
// terminator, so what is left is a blank line and the chunked encoding's
// last chunk, there within a round trip.
const (
	drainLimit = 4 << 10
	drainWait  = 100 * time.Millisecond
)

// drainRest reads what follows a stream's terminator to the body's end,
// so that the connection goes back to the pool: net/http closes the
// connection of a response body closed before its end, and the next
// generation then dialled a new one (a connect, a connection's goroutines
// and 64 KiB of buffers on nearly every ask of bench run C, strace). It
// reads at most drainLimit bytes for at most drainWait; a server that sends
// more, or holds the response open, only loses the connection (the call is
// cancelled, which closes it), never the answer already read.
func (cl *call) drainRest() {
	stop := time.AfterFunc(drainWait, cl.done)
	defer stop.Stop()
	_, _ = io.CopyN(io.Discard, cl.resp.Body, drainLimit)
}

// transportError sorts a failed round trip or body read
// (backend.TransportKind): a deadline passing or the response stalling is
// Timeout, anything else (refused, reset, caller gone) is Unreachable. The
// cause is kept for errors.Is(err, context.Canceled); a stall is not a
// cancel, so its cause is errStalled, never the context.Canceled the
// transport reports for it.
func (c *Client) transportError(ctx context.Context, err error) *Error {
	kind, cause := backend.TransportKind(ctx, err), err
	if errors.Is(context.Cause(ctx), errStalled) {
		kind, cause = Timeout, context.Cause(ctx)
	}
	return &Error{Kind: kind, Detail: c.backendDetail(backend.TransportDetail(cause)), cause: cause}
}

// readBody reads at most maxBytes of the body; more is BadResponse.
func (c *Client) readBody(cl *call) ([]byte, error) {
	var buf bytes.Buffer
	if err := c.readBodyInto(cl, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readBodyInto is readBody into buf (a pooled buffer).
func (c *Client) readBodyInto(cl *call, buf *bytes.Buffer) error {
	err := backend.ReadLimited(buf, cl.resp.Body, c.maxBytes)
	switch {
	case errors.Is(err, backend.ErrTooLarge):
		return badResponse(fmt.Sprintf("response over %d bytes", c.maxBytes))
	case err != nil:
		return c.transportError(cl.ctx, err)
	}
	return nil
}

// readEnvelope reads a JSON envelope and turns every failure form of
// docs/backends.md, RAGFlow wire details (Authentication, Envelope) into an
// *Error (backend.CheckRAGFlow).
func (c *Client) readEnvelope(cl *call) (*backend.RAGFlowEnvelope, error) {
	body, err := c.readBody(cl)
	if err != nil {
		return nil, err
	}
	env, refusal := backend.DecodeRAGFlow(cl.resp.StatusCode, cl.resp.Header, body)
	if refusal != nil {
		return nil, c.refused(refusal)
	}
	return env, nil
}

// checkEnvelope applies backend.CheckRAGFlow to an envelope the one-pass
// reader read from body (decoded is false when it did not decode as one).
func (c *Client) checkEnvelope(resp *http.Response, body []byte, h envelopeHead, decoded bool) error {
	if refusal := backend.CheckRAGFlow(resp.StatusCode, resp.Header, body, h.head(), decoded); refusal != nil {
		return c.refused(refusal)
	}
	return nil
}

// refused is the gate's error for a refused envelope: the backend's message
// cleaned for the log (backendDetail), nothing else of the body.
func (c *Client) refused(r *backend.RAGFlowRefusal) *Error {
	switch {
	case r.Kind == BadResponse:
		return badResponse(r.Why)
	case r.Why != "":
		return &Error{Kind: Rejected, HTTPStatus: r.HTTPStatus, Detail: r.Why + ": " + c.backendDetail(r.Message)}
	}
	return &Error{Kind: Rejected, HTTPStatus: r.HTTPStatus, Code: r.Code, Detail: c.backendDetail(r.Message)}
}

// isG1AuthFailure is backend.RAGFlowHead.G1AuthFailure for the one-pass
// reader's head (a stream event's, ragflow/sse.go).
func isG1AuthFailure(h envelopeHead) bool { return h.head().G1AuthFailure() }

// Health probes GET /api/v1/system/healthz (no key needed, none sent): nil
// only for HTTP 200 with "status": "ok".
func (c *Client) Health(ctx context.Context) error {
	cl, err := c.send(ctx, http.MethodGet, c.healthURL, nil, false, c.retrieval)
	if err != nil {
		return err
	}
	defer cl.close()
	body, err := c.readBody(cl)
	if err != nil {
		return err
	}
	if cl.resp.StatusCode != http.StatusOK {
		return &Error{Kind: Rejected, HTTPStatus: cl.resp.StatusCode, Detail: "unhealthy"}
	}
	var h struct {
		Status string `json:"status"`
	}
	if backend.IsHTML(cl.resp.Header, body) || json.Unmarshal(body, &h) != nil || h.Status == "" {
		return badResponse("not a healthz body")
	}
	if h.Status != "ok" {
		return &Error{Kind: Rejected, HTTPStatus: cl.resp.StatusCode, Detail: "status " + c.backendDetail(h.Status)}
	}
	return nil
}
