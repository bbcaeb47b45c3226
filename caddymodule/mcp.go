package caddymodule

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	"github.com/wikigate/wikigate/gateway"
	"github.com/wikigate/wikigate/mcp"
)

// MCPConfig is the `mcp` block: the Model Context Protocol front door to the
// same tools (docs/operators.md, "mcp"). The block's presence enables it.
type MCPConfig struct {
	// Enabled mounts the endpoint and the OAuth protected-resource
	// metadata. The Caddyfile block sets it unless it says `enable off`.
	Enabled bool `json:"enabled,omitempty"`
	// Path of the endpoint. Default /mcp.
	Path string `json:"path,omitempty"`
	// AllowedOrigins are the browser origins allowed to call it
	// (scheme://host[:port], port * for any). Requests without Origin are
	// allowed; any other Origin is refused (DNS-rebinding protection).
	AllowedOrigins []string `json:"allowed_origins,omitempty"`
	// AllowedHosts are names a request reaching the gate on a loopback
	// address may carry in Host besides loopback ones: the public name a
	// TLS terminator or balancer on the same machine passes on. Any other
	// name is refused there (DNS-rebinding protection).
	AllowedHosts []string `json:"allowed_hosts,omitempty"`
	// AuthorizationServers are listed in the RFC 9728 metadata. Default:
	// the agent_jwt issuer, when it is an http(s) URL.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// Resource is the protected resource identifier; a JWT must name it in
	// aud, so it must be one of agent_jwt's audience values. Default: the
	// endpoint's URL as reached, with agent_jwt's audience check only.
	Resource string `json:"resource,omitempty"`
	// Scopes are advertised as scopes_supported and in the 401 challenge.
	Scopes []string `json:"scopes,omitempty"`
	// SessionIdleTimeout ends a session without requests. Default 30m.
	SessionIdleTimeout caddy.Duration `json:"session_idle_timeout,omitempty"`
	// MaxSessionsPerCaller caps open sessions per identity. Default 16.
	MaxSessionsPerCaller int `json:"max_sessions_per_caller,omitempty"`
}

func (c *MCPConfig) unmarshal(d *caddyfile.Dispenser) error {
	c.Enabled = true
	var enable *bool
	err := parseBlock(d, "mcp", map[string]func() error{
		"enable":                  func() error { return onOff(d, &enable) },
		"path":                    func() error { return oneArg(d, &c.Path) },
		"allowed_origins":         func() error { return manyArgs(d, &c.AllowedOrigins) },
		"allowed_hosts":           func() error { return manyArgs(d, &c.AllowedHosts) },
		"authorization_servers":   func() error { return manyArgs(d, &c.AuthorizationServers) },
		"resource":                func() error { return oneArg(d, &c.Resource) },
		"scopes":                  func() error { return manyArgs(d, &c.Scopes) },
		"session_idle_timeout":    func() error { return durationArg(d, &c.SessionIdleTimeout) },
		"max_sessions_per_caller": func() error { return intArg(d, &c.MaxSessionsPerCaller, 1, 10000) },
	})
	if enable != nil {
		c.Enabled = *enable
	}
	return err
}

// mcpConfig turns the block into the endpoint's configuration, with
// placeholders expanded and the defaults that come from agent_jwt.
func (h *Handler) mcpConfig(repl *caddy.Replacer) (mcp.Config, error) {
	c := h.MCP
	out := mcp.Config{
		Enabled:              true,
		Path:                 c.Path,
		Resource:             repl.ReplaceAll(c.Resource, ""),
		Scopes:               c.Scopes,
		SessionIdleTimeout:   time.Duration(c.SessionIdleTimeout),
		MaxSessionsPerCaller: c.MaxSessionsPerCaller,
		MaxBodyBytes:         h.MaxBodyBytes * 4, // one message: the arguments (capped as a route body) plus JSON-RPC framing
		ClientIP:             clientIP,           // anonymous sessions are counted per reader, behind trusted_proxies too
	}
	for _, o := range c.AllowedOrigins {
		out.AllowedOrigins = append(out.AllowedOrigins, repl.ReplaceAll(o, ""))
	}
	for _, s := range c.AllowedHosts {
		out.AllowedHosts = append(out.AllowedHosts, repl.ReplaceAll(s, ""))
	}
	for _, s := range c.AuthorizationServers {
		out.AuthorizationServers = append(out.AuthorizationServers, repl.ReplaceAll(s, ""))
	}
	if len(out.AuthorizationServers) == 0 && h.AgentJWT != nil && isHTTPURL(h.AgentJWT.Issuer) {
		out.AuthorizationServers = []string{h.AgentJWT.Issuer}
	}
	if out.Resource != "" && (h.AgentJWT == nil || !slices.Contains(h.AgentJWT.Audience, out.Resource)) {
		return out, fmt.Errorf("mcp resource %q must be one of agent_jwt's audience values: tokens issued for it would be refused", out.Resource)
	}
	return out.WithDefaults(), out.WithDefaults().Validate()
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// provisionMCP builds the MCP endpoint on the gateway and starts watching
// for what must re-check its sessions (policy and key file changes).
func (h *Handler) provisionMCP(ctx caddy.Context, repl *caddy.Replacer) error {
	if h.MCP == nil || !h.MCP.Enabled {
		return nil
	}
	cfg, err := h.mcpConfig(repl)
	if err != nil {
		return err
	}
	gate := h.gw.MCP(gateway.MCPConfig{Path: cfg.Path, Resource: cfg.Resource})
	logger := slog.New(zapslog.NewHandler(h.logger.Named("mcp").Core()))
	if h.mcp, err = mcp.New(cfg, gate, logger); err != nil {
		return err
	}
	go h.refreshMCP(ctx, repl.ReplaceAll(h.APIKeysFile, ""))
	return nil
}

// mcpRefreshPeriod is how often the policy revision and the key file are
// compared with what the open sessions were last checked against.
const mcpRefreshPeriod = 2 * time.Second

// refreshMCP re-checks the open sessions whenever the policy revision or
// the API key file changes (a revoked key ends its sessions, a changed grant
// sends tools/list_changed), until this config is unloaded.
func (h *Handler) refreshMCP(ctx context.Context, keysFile string) {
	t := time.NewTicker(mcpRefreshPeriod)
	defer t.Stop()
	rev, keys := h.policy.Revision(), fileStamp(keysFile)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r, k := h.policy.Revision(), fileStamp(keysFile)
		if r == rev && k == keys {
			continue
		}
		rev, keys = r, k
		notified, closed := h.mcp.Refresh(ctx)
		h.logger.Info("mcp sessions re-checked", zap.String("policy_revision", r), zap.Int("notified", notified), zap.Int("closed", closed))
	}
}

// fileStamp changes when the file is replaced or edited ("" without one).
func fileStamp(path string) string {
	if path == "" {
		return ""
	}
	info, err := os.Stat(path)
	if err != nil {
		return "missing"
	}
	return fmt.Sprint(info.ModTime().UnixNano(), info.Size())
}
