package mcp

import (
	"testing"
	"time"
)

func TestConfigDefaults(t *testing.T) {
	c := Config{}.WithDefaults()
	if c.Path != "/mcp" || c.SessionIdleTimeout != 30*time.Minute || c.MaxSessionsPerCaller != 16 || c.MaxBodyBytes != 1<<20 {
		t.Errorf("defaults %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}

func TestConfigValidate(t *testing.T) {
	bad := []Config{
		{Path: "mcp"},
		{Path: "/mcp/"},
		{AllowedOrigins: []string{"docs.example.com"}},
		{AllowedOrigins: []string{"https://docs.example.com/path"}},
		{AllowedOrigins: []string{"https://docs.example.com:443:*"}},
		{AuthorizationServers: []string{"login.example.com"}},
		{Resource: "https://wiki.example.com/mcp#x"},
		{Scopes: []string{`wiki "read"`}},
		{Scopes: []string{"wiki read"}},
		{SessionIdleTimeout: -time.Second},
	}
	for _, c := range bad {
		if err := c.WithDefaults().Validate(); err == nil {
			t.Errorf("accepted %+v", c)
		}
	}
	good := Config{AllowedOrigins: []string{"https://docs.example.com", "http://localhost:*", "http://127.0.0.1:6274"},
		AuthorizationServers: []string{"https://login.example.com"}, Resource: "https://wiki.example.com/mcp", Scopes: []string{"wiki.read"}}
	if err := good.WithDefaults().Validate(); err != nil {
		t.Error(err)
	}
}
