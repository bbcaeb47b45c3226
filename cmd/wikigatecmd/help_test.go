package wikigatecmd

import (
	"strings"
	"testing"
)

// TestRootHelpArgs: help asked with a flag becomes the same request to the
// help command (so the gate's help page is the one printed); anything else
// runs as typed.
func TestRootHelpArgs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"wikigate", "wikigate help"},
		{"wikigate --help", "wikigate help"},
		{"wikigate -h", "wikigate help"},
		{"wikigate policy build -h", "wikigate help policy build"},
		{"wikigate token --help", "wikigate help token"},
		{"wikigate help", "wikigate help"},
		{"wikigate help token", "wikigate help token"},
		{"wikigate run --config Caddyfile", "wikigate run --config Caddyfile"},
		{"wikigate token --ttl 1h --help", "wikigate token --ttl 1h --help"},
		{"wikigate --help --help", "wikigate --help --help"},
	} {
		if got := strings.Join(RootHelpArgs(strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("RootHelpArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestReplacingCommand: the three commands that would put a stock Caddy in
// place of the binary are recognised when run or asked help for, and a
// flag value that happens to be one of their names is not mistaken for one.
func TestReplacingCommand(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"wikigate upgrade", "upgrade"},
		{"wikigate upgrade --help", "upgrade"},
		{"wikigate help add-package", "add-package"},
		{"wikigate remove-package github.com/x/y", "remove-package"},
		{"wikigate run --config upgrade", ""},
		{"wikigate help", ""},
		{"wikigate", ""},
	} {
		got, ok := ReplacingCommand(strings.Fields(c.in))
		if got != c.want || ok != (c.want != "") {
			t.Errorf("ReplacingCommand(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
	msg := RefuseReplacing("upgrade").Error()
	if !strings.HasPrefix(msg, "wikigate upgrade: not available: it would replace this binary with a stock Caddy") {
		t.Errorf("refusal = %q", msg)
	}
}
