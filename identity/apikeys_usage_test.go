package identity

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestAPIKeyPrincipalNamesTheKey: the principal of an API key call carries
// the key's public prefix (for the audit record), never the key.
func TestAPIKeyPrincipalNamesTheKey(t *testing.T) {
	store := openTestStore(t, filepath.Join(t.TempDir(), "keys.json"))
	store.now = fixedNow
	a := newAuthenticator(t, Config{APIKeys: store, Now: fixedNow})
	plain, rec, err := store.Create("agent-docs-bot", "ci", 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.AuthenticateAgent(requestWith(map[string]string{HeaderAPIKey: plain}))
	if err != nil || p.KeyID != rec.Prefix {
		t.Fatalf("principal = %+v, %v; want KeyID %q", p, err, rec.Prefix)
	}
}

// TestAPIKeyLastUsed: a use is visible at once in the serving process,
// reaches the usage file (for `key list` in another process) without
// touching the key file, and a key in constant use rewrites that file at
// most once per usageFlushPeriod.
func TestAPIKeyLastUsed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	clock := &testClock{now: t0}
	server := openTestStore(t, path)
	server.now = clock.Now
	a := newAuthenticator(t, Config{APIKeys: server, Now: clock.Now})
	plain, rec, err := server.Create("agent-docs-bot", "ci", 0)
	if err != nil {
		t.Fatal(err)
	}
	_, unused, _ := server.Create("agent-triage", "", 0)
	keyFile := mustRead(t, path)
	use := func() {
		t.Helper()
		if _, err := a.AuthenticateAgent(requestWith(map[string]string{HeaderAPIKey: plain})); err != nil {
			t.Fatal(err)
		}
	}

	use()
	waitForUsage(t, path, rec.Prefix, t0)
	cli := openTestStore(t, path) // another process: `wikigate key list`
	if got := lastUsedOf(cli.List(), rec.Prefix); got == nil || !got.Equal(t0) {
		t.Fatalf("key list shows last used %v, want %v", got, t0)
	}
	if got := lastUsedOf(cli.List(), unused.Prefix); got != nil {
		t.Errorf("an unused key shows last used %v", got)
	}

	clock.Set(t0.Add(10 * time.Second))
	use()
	if got := lastUsedOf(server.List(), rec.Prefix); got == nil || !got.Equal(t0.Add(10*time.Second)) {
		t.Errorf("the serving process shows last used %v, want the latest use", got)
	}
	time.Sleep(50 * time.Millisecond)
	if got := readUsageFile(path + ".used.json")[rec.Prefix]; !got.Equal(t0) {
		t.Errorf("a second use within %v rewrote the usage file (%v)", usageFlushPeriod, got)
	}

	later := t0.Add(usageFlushPeriod + time.Second)
	clock.Set(later)
	use()
	waitForUsage(t, path, rec.Prefix, later)
	if !bytes.Equal(mustRead(t, path), keyFile) {
		t.Error("using a key rewrote the key file")
	}
}

func lastUsedOf(records []KeyRecord, prefix string) *time.Time {
	for _, r := range records {
		if r.Prefix == prefix {
			return r.LastUsedAt
		}
	}
	return nil
}

func waitForUsage(t *testing.T, keyFile, prefix string, want time.Time) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if got := readUsageFile(keyFile + ".used.json")[prefix]; got.Equal(want) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("usage file never showed %s used at %v", prefix, want)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
