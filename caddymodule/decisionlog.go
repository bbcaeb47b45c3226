package caddymodule

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"go.uber.org/zap"

	"github.com/wikigate/wikigate/policies"
)

// DecisionLogConfig is the decision_log option of the policy block:
// where OPA-format decision events go (the Caddy log, a decision-log
// service or both) and what is masked.
type DecisionLogConfig struct {
	Buffer int      `json:"buffer,omitempty"`
	Mask   []string `json:"mask,omitempty"`
	// Service is the URL events are POSTed to in gzipped batches (OPA's
	// decision-log API: the service URL with its resource, e.g. /logs).
	Service string `json:"service,omitempty"`
	// BearerToken authenticates the POSTs ({env.NAME} recommended).
	BearerToken string `json:"bearer_token,omitempty"`
	// Batch is the most events in one POST; BatchInterval the longest an
	// event waits for its batch (100, 5s).
	Batch         int            `json:"batch,omitempty"`
	BatchInterval caddy.Duration `json:"batch_interval,omitempty"`
	// UploadBuffer bounds the events waiting for the service (10000).
	UploadBuffer int `json:"upload_buffer,omitempty"`
	// Console writes the events to the Caddy log too; default on without a
	// service, off with one.
	Console *bool `json:"console,omitempty"`
}

// unmarshalDecisionLog reads
//
//	decision_log [buffer <n>] [mask </input/path>...] {
//		service       <url>
//		bearer_token  <token>
//		batch         <events> [<interval>]
//		upload_buffer <n>
//		console       on|off
//	}
func (p *PolicyConfig) unmarshalDecisionLog(d *caddyfile.Dispenser) error {
	c := &DecisionLogConfig{}
	p.DecisionLog = c
	for d.NextArg() {
		switch d.Val() {
		case "buffer":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := strconv.Atoi(d.Val())
			if err != nil || n < 1 {
				return d.Errf("decision_log buffer: want a positive whole number")
			}
			c.Buffer = n
		case "mask":
			c.Mask = append(c.Mask, d.RemainingArgs()...)
		default:
			return d.Errf("decision_log: unknown option %q (buffer, mask)", d.Val())
		}
	}
	return parseBlock(d, "decision_log", map[string]func() error{
		"service":       func() error { return oneArg(d, &c.Service) },
		"bearer_token":  func() error { return oneArg(d, &c.BearerToken) },
		"batch":         func() error { return c.unmarshalBatch(d) },
		"upload_buffer": func() error { return intArg(d, &c.UploadBuffer, 1, 10_000_000) },
		"console":       func() error { return onOff(d, &c.Console) },
	})
}

func (c *DecisionLogConfig) unmarshalBatch(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) < 1 || len(args) > 2 {
		return d.ArgErr()
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		return d.Errf("decision_log batch: want a positive number of events, not %q", args[0])
	}
	c.Batch = n
	if len(args) == 2 {
		v, err := caddy.ParseDuration(args[1])
		if err != nil || v <= 0 {
			return d.Errf("decision_log batch: bad interval %q", args[1])
		}
		c.BatchInterval = caddy.Duration(v)
	}
	return nil
}

// options are the engine's decision-log options; the token is expanded
// here, never written to a log.
func (c *DecisionLogConfig) options(repl *caddy.Replacer, logger *zap.Logger) (*policies.DecisionLogOptions, error) {
	o := &policies.DecisionLogOptions{Buffer: c.Buffer, Mask: c.Mask}
	if c.Console == nil || *c.Console {
		o.Logger = logger
	}
	if c.Service == "" {
		if c.BearerToken != "" || c.Batch != 0 || c.UploadBuffer != 0 {
			return nil, fmt.Errorf("policy: decision_log: bearer_token, batch and upload_buffer need a service")
		}
		if o.Logger == nil {
			return nil, fmt.Errorf("policy: decision_log: console off needs a service")
		}
		return o, nil
	}
	if c.Console == nil {
		o.Logger = nil // a service replaces the console unless asked for both
	}
	up, err := c.upload(repl)
	o.Upload = up
	return o, err
}

func (c *DecisionLogConfig) upload(repl *caddy.Replacer) (*policies.UploadOptions, error) {
	service := repl.ReplaceAll(c.Service, "")
	u, err := url.Parse(service)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("policy: decision_log service %q: want an http(s) URL", c.Service)
	}
	up := &policies.UploadOptions{URL: service, Batch: c.Batch, Interval: time.Duration(c.BatchInterval),
		Buffer: c.UploadBuffer}
	if c.BearerToken != "" {
		token := repl.ReplaceAll(c.BearerToken, "")
		if token == "" {
			return nil, fmt.Errorf("policy: decision_log bearer_token is empty (is its environment variable set?)")
		}
		up.Headers = map[string]string{"Authorization": "Bearer " + token}
	}
	return up, nil
}
