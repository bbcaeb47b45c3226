// Package meili is the gate's Meilisearch client (docs/backends.md,
// Meilisearch): it builds filters from an effective scope, optionally mints a
// tenant token per call so Meilisearch enforces the scope too, calls the
// search route with bounded time and size, and classifies every failure so
// the gate can answer search_unavailable without leaking backend details
// (docs/backends.md, Meilisearch wire details).
package meili

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sync"
	"time"

	"github.com/wikigate/wikigate/backend"
)

// Defaults for Config fields left zero.
const (
	DefaultTimeout          = 5 * time.Second
	DefaultMaxResponseBytes = 4 << 20
	tenantTokenLifetime     = time.Minute
)

// now is the clock tenant-token expiry is computed from; tests replace it.
var now = time.Now

var (
	indexUIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,512}$`)
	keyUIDPattern   = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

// Config configures a Client.
type Config struct {
	// URL is Meilisearch's base URL (http or https, optionally with a path
	// prefix when it sits behind a proxy).
	URL string
	// APIKey is sent as the bearer: the master key or a key with the
	// search action. Empty sends no Authorization header (an instance
	// without a master key).
	APIKey string
	// Index is the uid of the page index.
	Index string
	// Timeout bounds each call, response body included. Default 5s.
	Timeout time.Duration
	// MaxResponseBytes bounds a response body; a bigger one is a
	// BadResponse. Default 4 MiB.
	MaxResponseBytes int64
	// TenantKey and TenantKeyUID, when set, make the client mint a tenant
	// token per search (searchRules {Index: {filter}}, HS256, valid for one
	// minute) and send it instead of APIKey, so Meilisearch itself enforces
	// the filter. TenantKey is the value of a key with the search action,
	// TenantKeyUID its uid.
	TenantKey, TenantKeyUID string
	// HTTPClient defaults to a client with dial, TLS and idle limits that
	// does not follow redirects.
	HTTPClient *http.Client
}

// Client calls one Meilisearch index. It is safe for concurrent use.
type Client struct {
	cfg       Config
	searchURL string
	healthURL string
	http      *http.Client
}

// New validates cfg and returns a Client. It does no network I/O.
func New(cfg Config) (*Client, error) {
	base, err := backend.BaseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("meili: %w", err)
	}
	if !indexUIDPattern.MatchString(cfg.Index) {
		return nil, errors.New("meili: index uid must be 1-512 characters of A-Z, a-z, 0-9, '_' or '-'")
	}
	if (cfg.TenantKey == "") != (cfg.TenantKeyUID == "") {
		return nil, errors.New("meili: tenant key and tenant key uid must be set together")
	}
	if cfg.TenantKeyUID != "" && !keyUIDPattern.MatchString(cfg.TenantKeyUID) {
		return nil, errors.New("meili: tenant key uid must be a UUID")
	}
	if cfg.Timeout < 0 || cfg.MaxResponseBytes < 0 {
		return nil, errors.New("meili: timeout and max response bytes must not be negative")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxResponseBytes == 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	c := &Client{
		cfg:       cfg,
		searchURL: base.JoinPath("indexes", cfg.Index, "search").String(),
		healthURL: base.JoinPath("health").String(),
		http:      cfg.HTTPClient,
	}
	if c.http == nil {
		c.http = backend.HTTPClient()
	}
	return c, nil
}

// Search runs one search (POST /indexes/{index}/search). Failures are
// *Error, except a missing filter or negative numbers, which are the
// caller's bug and plain errors.
func (c *Client) Search(ctx context.Context, p SearchParams) (*SearchResponse, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	raw := p.appendJSON(make([]byte, 0, 512))
	bearer, err := c.bearer(p.Filter)
	if err != nil {
		return nil, err
	}
	status, header, buf, err := c.send(ctx, http.MethodPost, c.searchURL, raw, bearer)
	if err != nil {
		return nil, err
	}
	defer putBuffer(buf)
	if status/100 != 2 {
		return nil, c.scrubbed(statusError(status, header, buf.Bytes()), bearer)
	}
	return decodeSearch(status, buf.Bytes())
}

// bearer is the tenant token for filter when one is configured, else APIKey.
func (c *Client) bearer(filter string) (string, error) {
	if c.cfg.TenantKey == "" {
		return c.cfg.APIKey, nil
	}
	return MintTenantToken(c.cfg.TenantKey, c.cfg.TenantKeyUID, c.cfg.Index, filter,
		now().Add(tenantTokenLifetime))
}

// Health checks GET /health, which needs no key: nil only for 200
// {"status":"available"}.
func (c *Client) Health(ctx context.Context) error {
	status, header, buf, err := c.send(ctx, http.MethodGet, c.healthURL, nil, "")
	if err != nil {
		return err
	}
	defer putBuffer(buf)
	body := buf.Bytes()
	var h struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(body, &h) != nil || h.Status == "" {
		if status/100 != 2 {
			return c.scrubbed(statusError(status, header, body), "")
		}
		return badResponse(status, "health response is not {\"status\": ...}")
	}
	if status != http.StatusOK || h.Status != "available" {
		return &Error{Kind: Rejected, HTTPStatus: status, Detail: c.scrub("health status " + h.Status)}
	}
	return nil
}

// send makes one bounded call and returns the status and the whole body in
// a pooled buffer the caller hands back with putBuffer (decoded values are
// copies, so nothing refers to it afterwards). Only failures to get a
// complete answer are errors here; the caller judges the status.
func (c *Client) send(ctx context.Context, method, target string, body []byte, bearer string) (int, http.Header, *bytes.Buffer, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("meili: building request: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	backend.SetCallHeaders(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, c.scrubbed(transportError(ctx, err), bearer)
	}
	defer resp.Body.Close()
	if resp.ContentLength > c.cfg.MaxResponseBytes {
		return 0, nil, nil, badResponse(resp.StatusCode, "response of %d bytes is over the %d byte limit", resp.ContentLength, c.cfg.MaxResponseBytes)
	}
	buf := bufferPool.Get().(*bytes.Buffer)
	buf.Reset()
	if err := backend.ReadLimited(buf, resp.Body, c.cfg.MaxResponseBytes); err != nil {
		putBuffer(buf)
		if errors.Is(err, backend.ErrTooLarge) {
			return 0, nil, nil, badResponse(resp.StatusCode, "response is over the %d byte limit", c.cfg.MaxResponseBytes)
		}
		e := c.scrubbed(transportError(ctx, err), bearer)
		e.HTTPStatus = resp.StatusCode
		return 0, nil, nil, e
	}
	return resp.StatusCode, resp.Header, buf, nil
}

// bufferPool recycles response buffers: search responses are read on every
// call and are a few KiB each.
var bufferPool = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 16<<10)) }}

// putBuffer returns buf to the pool unless it grew large (a rare big
// response should not pin memory).
func putBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= 256<<10 {
		bufferPool.Put(buf)
	}
}

// scrubbed cleans e.Detail of the configured keys and the bearer in use.
func (c *Client) scrubbed(e *Error, bearer string) *Error {
	e.Detail = backend.Detail(e.Detail, bearer, c.cfg.APIKey, c.cfg.TenantKey)
	return e
}

func (c *Client) scrub(detail string) string {
	return backend.Detail(detail, c.cfg.APIKey, c.cfg.TenantKey)
}
