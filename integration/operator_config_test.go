package integration

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/wikigate/wikigate/caddymodule"
	"github.com/wikigate/wikigate/feedback"
)

// connCounter is a loopback listener that only counts the connections
// made to it: a store that validation must not open points at it.
type connCounter struct {
	ln    net.Listener
	count atomic.Int64
}

func countConnections(t *testing.T) *connCounter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &connCounter{ln: ln}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.count.Add(1)
			_ = conn.Close()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return c
}

// validateCaddyfile adapts cfg and validates it as `wikigate validate`
// does (the stores left closed).
func validateCaddyfile(t *testing.T, cfg string) error {
	t.Helper()
	restore := caddymodule.ValidateWithoutStores()
	defer restore()
	cfgJSON, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		t.Fatalf("adapting: %v", err)
	}
	var c caddy.Config
	if err := caddy.StrictUnmarshalJSON(cfgJSON, &c); err != nil {
		t.Fatal(err)
	}
	return caddy.Validate(&c)
}

func gateCaddyfile(t *testing.T, port int, stores string) string {
	policyDir, _ := filepath.Abs("../rego")
	return fmt.Sprintf(`{
	admin off
	log {
		output discard
	}
}
http://:%d {
	bind 127.0.0.1
	wikigate {
		policy_dir %s
		api_keys_file %s
		meilisearch {
			url http://127.0.0.1:1
			api_key k
		}
		%s
	}
}`, port, policyDir, filepath.Join(t.TempDir(), "keys.json"), stores)
}

// `wikigate validate` beside a running gate: the gate holds the bbolt
// lock; validation neither waits on it nor fails, creates no database for
// a new path, and connects to neither PostgreSQL nor Redis
// (docs/operators.md, "The `wikigate` directive").
func TestValidateOpensNoStore(t *testing.T) {
	held := filepath.Join(t.TempDir(), "feedback.db")
	running, err := feedback.Open(held, feedback.Options{}) // the running gate's lock
	if err != nil {
		t.Fatal(err)
	}
	defer running.Close()
	if err := validateCaddyfile(t, gateCaddyfile(t, freePort(t), "feedback {\n path "+held+"\n }")); err != nil {
		t.Fatalf("validating beside a gate holding the feedback store: %v", err)
	}
	fresh := filepath.Join(t.TempDir(), "new", "feedback.db")
	if err := validateCaddyfile(t, gateCaddyfile(t, freePort(t), "feedback {\n path "+fresh+"\n }")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(fresh)); !os.IsNotExist(err) {
		t.Errorf("validation created %s (%v)", filepath.Dir(fresh), err)
	}
	servers := countConnections(t)
	addr := servers.ln.Addr().String()
	stores := fmt.Sprintf("postgres {\n dsn postgres://u:p@%s/db?sslmode=disable\n }\n feedback {\n store postgres\n }\n"+
		"redis {\n url redis://%s/0\n }\n sessions {\n store redis\n }", addr, addr)
	if err := validateCaddyfile(t, gateCaddyfile(t, freePort(t), stores)); err != nil {
		t.Fatal(err)
	}
	if n := servers.count.Load(); n != 0 {
		t.Errorf("validation connected %d time(s) to the PostgreSQL/Redis address", n)
	}
	bad := "feedback {\n store postgres\n }"
	if err := validateCaddyfile(t, gateCaddyfile(t, freePort(t), bad)); err == nil || !strings.Contains(err.Error(), "store postgres needs a postgres block") {
		t.Errorf("validation without stores still checks their settings: %v", err)
	}
}

// A reload keeps live sessions; one that changes what cannot change under
// a live store (the session store's sizing, the bbolt store's GitHub sink)
// is refused with a message saying so, and the running config keeps
// serving the same sessions.
func TestReloadKeepsSessionsOrRefusesClearly(t *testing.T) {
	g := startGate(t, gateOptions{})
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	id, token := createSession(t, g, coding)
	for name, tc := range map[string]struct{ from, to, want string }{
		"github sink": {"path " + g.feedbackPath, "path " + g.feedbackPath + "\n\t\t\tgithub {\n\t\t\t\trepo acme/wiki\n\t\t\t\ttoken t\n\t\t\t}",
			"the github block changed, but the feedback store " + g.feedbackPath + " stays open across reloads"},
		"session ttl": {"feedback {", "sessions {\n\t\t\tttl 45m\n\t\t}\n\t\tfeedback {",
			"a reload cannot resize it without dropping every live session"},
	} {
		changed := strings.Replace(g.config, tc.from, tc.to, 1)
		cfgJSON, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(changed), map[string]any{"filename": "Caddyfile"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := caddy.Load(cfgJSON, true); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: reload gave %v, want a refusal saying %q", name, err, tc.want)
		}
	}
	g.reload()
	if r := g.post("/answer/sessions/"+id+"/turns", withSession(coding, token), `{"question":"How do I configure agent memory?"}`); r.Status != 200 {
		t.Fatalf("session turn after refused and accepted reloads: %d %s", r.Status, r.Body)
	}
}
