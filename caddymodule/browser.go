package caddymodule

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/wikigate/wikigate/cors"
	"github.com/wikigate/wikigate/gateway"
)

// CORSConfig is the `cors` block: which browser origins may call the answer
// routes from a page (docs/docs-sites.md, "CORS"). Without it no CORS header
// is ever sent.
type CORSConfig struct {
	// AllowedOrigins are scheme://host[:port] origins, or "*" (not with
	// credentials).
	AllowedOrigins []string `json:"allowed_origins,omitempty"`
	// Credentials lets the page send its SSO token or cookies. Default off.
	Credentials *bool `json:"credentials,omitempty"`
	// MaxAge is how long a browser caches a preflight. Default 10m.
	MaxAge caddy.Duration `json:"max_age,omitempty"`
	// AllowedHeaders are the request headers a page may send. Default
	// Authorization, Content-Type, X-Session-Token, X-Request-Id.
	AllowedHeaders []string `json:"allowed_headers,omitempty"`
	// Paths are the path prefixes covered. Default /answer/; the agents'
	// /agent/ routes only when listed here.
	Paths []string `json:"paths,omitempty"`
}

func (c *CORSConfig) unmarshal(d *caddyfile.Dispenser) error {
	return parseBlock(d, "cors", map[string]func() error{
		"allowed_origins": func() error { return manyArgs(d, &c.AllowedOrigins) },
		"credentials":     func() error { return onOff(d, &c.Credentials) },
		"max_age":         func() error { return durationArg(d, &c.MaxAge) },
		"allowed_headers": func() error { return manyArgs(d, &c.AllowedHeaders) },
		"paths":           func() error { return manyArgs(d, &c.Paths) },
	})
}

// validate refuses what a browser would refuse anyway, at load time.
func (c *CORSConfig) validate() error {
	if len(c.AllowedOrigins) == 0 {
		return fmt.Errorf("cors: allowed_origins is required")
	}
	for _, o := range c.AllowedOrigins {
		if o == "*" {
			if c.Credentials != nil && *c.Credentials {
				return fmt.Errorf("cors: allowed_origins * cannot be used with credentials on")
			}
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.TrimRight(u.Path, "/") != "" {
			return fmt.Errorf("cors: origin %q is not scheme://host[:port]", o)
		}
	}
	for _, p := range c.Paths {
		if !strings.HasPrefix(p, "/") {
			return fmt.Errorf("cors: path %q must start with /", p)
		}
	}
	return nil
}

func (c *CORSConfig) policy() *cors.Policy {
	if c == nil {
		return nil
	}
	return cors.New(cors.Config{
		Origins:     c.AllowedOrigins,
		Credentials: c.Credentials != nil && *c.Credentials,
		MaxAge:      time.Duration(c.MaxAge),
		Headers:     c.AllowedHeaders,
		Paths:       slices.Clone(c.Paths),
	})
}

// StreamingConfig is the `streaming` block: streamed answers (SSE).
type StreamingConfig struct {
	// KeepAlive is the longest silence before a keep-alive comment.
	// Default 15s.
	KeepAlive caddy.Duration `json:"keep_alive,omitempty"`
	// MaxPerCaller caps one caller's open streams (429 past it). Default 4.
	MaxPerCaller int `json:"max_per_caller,omitempty"`
	// MaxOpen caps this gate process's open streams, every caller
	// together (429 past it). Default 256.
	MaxOpen int `json:"max_open,omitempty"`
	// RetryAfter is the wait a 429 names. Default 5s.
	RetryAfter caddy.Duration `json:"retry_after,omitempty"`
	// ResumeWindow is how long an ended stream's events stay readable
	// for GET /answer/streams/{id} with Last-Event-ID. Default 5m.
	ResumeWindow caddy.Duration `json:"resume_window,omitempty"`
}

func (s *StreamingConfig) unmarshal(d *caddyfile.Dispenser) error {
	return parseBlock(d, "streaming", map[string]func() error{
		"keep_alive":     func() error { return durationArg(d, &s.KeepAlive) },
		"max_per_caller": func() error { return intArg(d, &s.MaxPerCaller, 1, 10000) },
		"max_open":       func() error { return intArg(d, &s.MaxOpen, 1, 1_000_000) },
		"retry_after":    func() error { return durationArg(d, &s.RetryAfter) },
		"resume_window":  func() error { return durationArg(d, &s.ResumeWindow) },
	})
}

// streamConfig is the gateway's; anonymous readers are told apart by
// Caddy's client IP, which honours the server's trusted_proxies.
func (s *StreamingConfig) streamConfig() gateway.StreamConfig {
	out := gateway.StreamConfig{ClientIP: clientIP}
	if s != nil {
		out.KeepAlive, out.RetryAfter = time.Duration(s.KeepAlive), time.Duration(s.RetryAfter)
		out.MaxPerCaller, out.MaxOpen = s.MaxPerCaller, s.MaxOpen
		out.ResumeWindow = time.Duration(s.ResumeWindow)
	}
	return out
}

// PeopleFeedbackLimit is `feedback { people_limit <burst> <every> }`: each
// caller's budget on POST /answer/feedback (docs/docs-sites.md
// "Readers' feedback"), per gate process.
type PeopleFeedbackLimit struct {
	// Burst is how many reports a caller may send at once. Default 5.
	Burst int `json:"burst,omitempty"`
	// Every is how long the budget takes to earn one more. Default 1m.
	Every caddy.Duration `json:"every,omitempty"`
}

func (p *PeopleFeedbackLimit) unmarshal(d *caddyfile.Dispenser) error {
	var burst, every string
	if !d.Args(&burst, &every) || d.NextArg() {
		return d.Errf("people_limit takes <burst> <every>, e.g. people_limit 5 1m")
	}
	n, err := strconv.Atoi(burst)
	if err != nil || n < 1 || n > 1_000_000 {
		return d.Errf("people_limit burst %q must be a whole number from 1 to 1000000", burst)
	}
	dur, err := caddy.ParseDuration(every)
	if err != nil || dur < time.Second {
		return d.Errf("people_limit every %q must be a duration of at least 1s", every)
	}
	p.Burst, p.Every = n, caddy.Duration(dur)
	return nil
}

// feedbackLimit is the gateway's; nil (no people_limit) takes its defaults.
func (p *PeopleFeedbackLimit) feedbackLimit() gateway.FeedbackLimit {
	if p == nil {
		return gateway.FeedbackLimit{}
	}
	return gateway.FeedbackLimit{Burst: p.Burst, Every: time.Duration(p.Every)}
}
