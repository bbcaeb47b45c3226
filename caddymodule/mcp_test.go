package caddymodule

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

// A resource the agent issuer's audience check would refuse tokens for is
// a configuration error, not a gate that refuses every MCP token.
func TestMCPResourceMustBeAnAgentAudience(t *testing.T) {
	h := &Handler{AgentJWT: &JWTConfig{Issuer: "https://auth.example.com", Audience: []string{"wikigate"}},
		MCP: &MCPConfig{Enabled: true, Resource: "https://wiki.example.com/mcp"}}
	if _, err := h.mcpConfig(caddy.NewReplacer()); err == nil || !strings.Contains(err.Error(), "audience") {
		t.Fatalf("resource outside the audience accepted: %v", err)
	}
	h.AgentJWT.Audience = append(h.AgentJWT.Audience, "https://wiki.example.com/mcp")
	cfg, err := h.mcpConfig(caddy.NewReplacer())
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.AuthorizationServers) != 1 || cfg.AuthorizationServers[0] != "https://auth.example.com" {
		t.Errorf("authorization servers default to the agent issuer: %v", cfg.AuthorizationServers)
	}
	h.AgentJWT.Issuer = "wikigate-dev" // not a URL: nothing to advertise
	if cfg, _ = h.mcpConfig(caddy.NewReplacer()); len(cfg.AuthorizationServers) != 0 {
		t.Errorf("a non-URL issuer advertised: %v", cfg.AuthorizationServers)
	}
}
