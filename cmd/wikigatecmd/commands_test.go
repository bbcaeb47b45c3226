package wikigatecmd

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"
)

func TestOperatorCommandsAreAtTheTopLevelAndUnderTheOldName(t *testing.T) {
	cmds := caddycmd.Commands()
	for _, name := range []string{"token", "key", "doctor", "ingest", "policy", "audit", "wikigate"} {
		if _, ok := cmds[name]; !ok {
			t.Errorf("wikigate %s is not a top-level command", name)
		}
	}
	alias := &cobra.Command{Use: "wikigate"}
	cmds["wikigate"].CobraFunc(alias)
	var subs []string
	for _, c := range alias.Commands() {
		subs = append(subs, c.Name())
	}
	for _, name := range []string{"token", "key", "ingest", "doctor"} {
		if !slices.Contains(subs, name) {
			t.Errorf("the old spelling `wikigate wikigate %s` is gone (has %v)", name, subs)
		}
	}
	key := &cobra.Command{Use: "key"}
	cmds["key"].CobraFunc(key)
	for _, name := range []string{"create", "list", "revoke"} {
		if c, _, err := key.Find([]string{name}); err != nil || c.Name() != name {
			t.Errorf("wikigate key %s: %v", name, err)
		}
	}
}

// run executes a command tree with args and returns what it printed.
func run(t *testing.T, c *cobra.Command, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	c.SetOut(&out)
	c.SetErr(&out)
	c.SetArgs(args)
	err := c.Execute()
	return out.String(), err
}

func TestKeyRevokeSaysWhichKeyItRevoked(t *testing.T) {
	file := filepath.Join(t.TempDir(), "keys.json")
	out, err := run(t, keyCommand(), "create", "--agent", "ci-bot", "--label", "nightly", "--file", file)
	if err != nil {
		t.Fatal(err)
	}
	prefix := strings.Fields(out)[2] // "created key <prefix> for agent …"
	out, err = run(t, keyCommand(), "revoke", "--prefix", prefix, "--file", file)
	if err != nil {
		t.Fatal(err)
	}
	if want := "revoked " + prefix + "\tagent=ci-bot\tlabel=\"nightly\"\n"; out != want {
		t.Errorf("revoke printed %q, want %q", out, want)
	}
	out, err = run(t, keyCommand(), "revoke", "--prefix", prefix, "--file", file)
	if want := "already revoked " + prefix + "\tagent=ci-bot\tlabel=\"nightly\"\n"; err != nil || out != want {
		t.Errorf("revoking again printed %q (%v), want %q", out, err, want)
	}
	out, _ = run(t, keyCommand(), "list", "--file", file)
	if !strings.Contains(out, prefix+"\tagent=ci-bot") || !strings.Contains(out, "revoked=true\tlast_used=never") {
		t.Errorf("list after revoke: %q", out)
	}
	if _, err := run(t, keyCommand(), "revoke", "--prefix", "nosuchkey", "--file", file); err == nil || !strings.Contains(err.Error(), `no api key with prefix "nosuchkey"`) {
		t.Errorf("revoking an unknown prefix: %v", err)
	}
}

func TestOnlyValidationSkipsTheStores(t *testing.T) {
	for args, want := range map[string]bool{
		"validate --config Caddyfile": true, "adapt --config Caddyfile --validate": true,
		"adapt --config Caddyfile": false, "run --config Caddyfile": false, "reload": false,
	} {
		if got := isValidation(append([]string{"wikigate"}, strings.Fields(args)...)); got != want {
			t.Errorf("isValidation(%q) = %v, want %v", args, got, want)
		}
	}
}

// A token longer-lived than gates accept by default says so, and still
// prints the token (a gate with a larger max_ttl takes it).
func TestTokenWarnsPastTheDefaultMaxTTL(t *testing.T) {
	t.Setenv(envJWTSecret, "a-test-secret-of-enough-length-0123456789")
	out, err := run(t, tokenCommand(), "--agent", "ci-bot", "--ttl", "48h")
	if err != nil || !strings.Contains(out, "warning: --ttl 48h0m0s is over the 24h0m0s gates accept by default (max_ttl)") || strings.Count(out, ".") < 2 {
		t.Fatalf("--ttl 48h: %q %v", out, err)
	}
	out, err = run(t, tokenCommand(), "--agent", "ci-bot", "--ttl", "2h")
	if err != nil || strings.Contains(out, "warning") {
		t.Fatalf("--ttl 2h: %q %v", out, err)
	}
}
