package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/identity"
)

// accessLog is docs/operators.md's access-log block for the gate's site. Caddy
// redacts Authorization and cookies itself but logs other headers, and it
// logs a copy of the request taken before any handler runs, so the API key
// and session token headers must be filtered in the log's format.
const accessLog = `log {
		output file %s
		format filter {
			request>headers>X-Agent-Api-Key delete
			request>headers>X-Session-Token delete
		}
	}`

// TestAccessLogHoldsNoCredentials turns on Caddy's access log for the gate's
// site as docs/operators.md shows, and checks that no API key, bearer token or
// session token reaches it.
func TestAccessLogHoldsNoCredentials(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "access.log")
	g := startGate(t, gateOptions{siteExtra: fmt.Sprintf(accessLog, logFile)})
	store, err := identity.OpenKeyStore(g.keysFile)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := store.Create("kunora-coding-agent", "log-test", 0)
	if err != nil {
		t.Fatal(err)
	}
	tok := agentToken(t, "kunora-coding-agent")
	if r := g.post("/agent/tools/search", map[string]string{"X-Agent-Api-Key": key}, `{"question":"agent memory"}`); r.Status != 200 {
		t.Fatalf("search with a key: %d %s", r.Status, r.Body)
	}
	id, sessionToken := createSession(t, g, bearer(tok))
	if r := g.post("/answer/sessions/"+id+"/turns", withSession(bearer(tok), sessionToken), `{"question":"agent memory"}`); r.Status != 200 {
		t.Fatalf("turn: %d %s", r.Status, r.Body)
	}
	var logged string
	waitFor(t, "the access log", func() bool {
		b, _ := os.ReadFile(logFile)
		logged = string(b)
		return strings.Count(logged, "\n") >= 3
	})
	time.Sleep(100 * time.Millisecond)
	b, _ := os.ReadFile(logFile)
	logged = string(b)
	if !strings.Contains(logged, "Content-Type") {
		t.Fatalf("the access log has no request headers; nothing was tested: %s", logged)
	}
	for name, secret := range map[string]string{"api key": key, "bearer token": tok, "session token": sessionToken} {
		if strings.Contains(logged, secret) {
			t.Errorf("the access log holds the %s", name)
		}
	}
}
