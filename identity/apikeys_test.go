package identity

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func openTestStore(t *testing.T, path string) *KeyStore {
	t.Helper()
	s, err := OpenKeyStore(path)
	if err != nil {
		t.Fatalf("OpenKeyStore: %v", err)
	}
	t.Cleanup(s.usage.wait) // runs before t.TempDir's removal
	return s
}

func TestAPIKeyLifecycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "keys.json")
	clock := &testClock{now: t0}
	store := openTestStore(t, path)
	store.now = clock.Now
	a := newAuthenticator(t, Config{APIKeys: store, Now: clock.Now})

	plain, rec, err := store.Create("agent-docs-bot", "ci", time.Hour)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if !strings.HasPrefix(plain, "wgk_"+rec.Prefix+"_") || len(plain) != 4+8+1+43 {
		t.Fatalf("plaintext has the wrong shape (len %d)", len(plain))
	}
	permanent, _, err := store.Create("agent-triage", "", 0)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	revoked, revokedRec, _ := store.Create("agent-old", "", 0)
	if err := store.Revoke(revokedRec.Prefix); err != nil {
		t.Fatalf("Revoke: %v", err)
	}
	if again, already, err := store.RevokeRecord(revokedRec.Prefix); err != nil || !already || !again.Revoked {
		t.Fatalf("revoking twice: %+v already=%v %v; want it reported as already revoked", again, already, err)
	}
	tampered := plain[:len(plain)-1] + flip(plain[len(plain)-1])

	tests := []struct {
		name string
		at   time.Time
		key  string
		want Principal
		msg  string
	}{
		{"valid key", t0, plain, Principal{Type: TypeAgent, ID: "agent-docs-bot", Credential: CredentialAPIKey}, ""},
		{"just before expiry", t0.Add(time.Hour - time.Second), plain, Principal{Type: TypeAgent, ID: "agent-docs-bot", Credential: CredentialAPIKey}, ""},
		{"expired", t0.Add(time.Hour), plain, Principal{}, msgAPIKeyExpired},
		{"no expiry", t0.Add(24 * 365 * time.Hour), permanent, Principal{Type: TypeAgent, ID: "agent-triage", Credential: CredentialAPIKey}, ""},
		{"revoked", t0, revoked, Principal{}, msgAPIKeyRevoked},
		{"tampered secret", t0, tampered, Principal{}, msgAPIKeyInvalid},
		{"expired key tampered says invalid", t0.Add(2 * time.Hour), tampered, Principal{}, msgAPIKeyInvalid},
		{"unknown prefix", t0, "wgk_aaaaaaaa_" + plain[13:], Principal{}, msgAPIKeyInvalid},
		{"wrong shape", t0, "sk-live-1234", Principal{}, msgAPIKeyInvalid},
		{"empty header", t0, "", Principal{}, msgEmptyCredential},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock.Set(tc.at)
			p, err := a.AuthenticateAgent(requestWith(map[string]string{HeaderAPIKey: tc.key}))
			checkResult(t, p, err, tc.want, tc.msg, tc.key)
		})
	}
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

func TestAPIKeyFileStoresOnlyHashes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "dir", "keys.json")
	store := openTestStore(t, path)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("opening created the file: %v", err)
	}
	plain, rec, err := store.Create("agent-docs-bot", "laptop", 0)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Fatalf("file mode = %o, want 600", perm)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	secret := plain[len("wgk_")+8+1:]
	if strings.Contains(string(data), secret) {
		t.Fatal("key file contains the secret part of the key")
	}
	for _, want := range []string{`"prefix": "` + rec.Prefix + `"`, `"hash": "` + hashAPIKey(plain) + `"`, `"label": "laptop"`, `"createdAt"`} {
		if !strings.Contains(string(data), want) {
			t.Fatalf("key file lacks %s:\n%s", want, data)
		}
	}
	list := openTestStore(t, path).List()
	if len(list) != 1 || list[0].Prefix != rec.Prefix || list[0].Agent != "agent-docs-bot" || list[0].ExpiresAt != nil {
		t.Fatalf("List after reopen = %+v", list)
	}
	if err := store.Revoke("zzzzzzzz"); err == nil {
		t.Fatal("Revoke of an unknown prefix succeeded")
	}
}

// The CLI is another process: the running server's store must see keys it
// adds and revocations it makes.
func TestAPIKeyStoreSeesOtherWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	server := openTestStore(t, path)
	cli := openTestStore(t, path)

	plain, rec, err := cli.Create("agent-docs-bot", "added by cli", 0)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got, err := server.Lookup(plain); err != nil || got.Agent != "agent-docs-bot" {
		t.Fatalf("server Lookup of a key the cli added = %+v, %v", got, err)
	}

	if err := cli.Revoke(rec.Prefix); err != nil {
		t.Fatalf("Revoke: %v", err)
	}
	server.mu.Lock()
	server.lastStat = time.Time{} // the once-per-second stat period has passed
	server.mu.Unlock()
	_, err = server.Lookup(plain)
	checkResult(t, Principal{}, err, Principal{}, msgAPIKeyRevoked, plain)

	// A create through the server keeps what the cli wrote.
	if _, _, err := server.Create("agent-two", "", 0); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if n := len(cli.List()); n != 2 {
		t.Fatalf("cli sees %d keys, want 2", n)
	}
}

func TestOpenKeyStoreRejectsCorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	for name, content := range map[string]string{
		"not json":      "{",
		"bad hash":      `{"keys":[{"prefix":"abcdefgh","hash":"xyz"}]}`,
		"duplicate":     `{"keys":[{"prefix":"abcdefgh","hash":"` + strings.Repeat("a", 64) + `"},{"prefix":"abcdefgh","hash":"` + strings.Repeat("b", 64) + `"}]}`,
		"prefix with _": `{"keys":[{"prefix":"abc_efgh","hash":"` + strings.Repeat("a", 64) + `"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := OpenKeyStore(path); err == nil {
				t.Fatal("OpenKeyStore accepted a corrupt file")
			}
		})
	}
}

func TestAPIKeysDisabled(t *testing.T) {
	a := newAuthenticator(t, hmacAgentsConfig())
	p, err := a.AuthenticateAgent(requestWith(map[string]string{HeaderAPIKey: "wgk_abcdefgh_" + strings.Repeat("A", 43)}))
	checkResult(t, p, err, Principal{}, msgAPIKeysDisabled, "")
}

// An operator's broken hand edit (a trailing comma after setting "revoked")
// must not leave the old, unrevoked keys working: while the file does not
// parse every key is refused, and the next good version is picked up.
func TestAPIKeyFileBrokenByHandEditFailsClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	cli := openTestStore(t, path)
	plain, rec, err := cli.Create("agent-docs-bot", "", 0)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	logs, observed := observer.New(zap.InfoLevel)
	server, err := OpenKeyStore(path, WithKeyStoreLogger(zap.New(logs)))
	if err != nil {
		t.Fatalf("OpenKeyStore: %v", err)
	}
	t.Cleanup(server.usage.wait)
	lookup := func() error {
		server.mu.Lock()
		server.lastStat = time.Time{} // the once-per-second stat period has passed
		server.mu.Unlock()
		_, err := server.Lookup(plain)
		return err
	}
	if err := lookup(); err != nil || server.LastError() != nil {
		t.Fatalf("before the edit: lookup %v, LastError %v", err, server.LastError())
	}

	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(good), `"revoked": false`, `"revoked": true,`, 1)
	if broken == string(good) {
		t.Fatalf("fixture: no revoked field in\n%s", good)
	}
	writeFile(t, path, broken)
	for range 2 { // still refused when the broken file is seen again
		checkResult(t, Principal{}, lookup(), Principal{}, msgAPIKeysUnavailable, plain)
	}
	if err := server.LastError(); err == nil || !strings.Contains(err.Error(), "parsing api key file") {
		t.Fatalf("LastError = %v, want the parse error", err)
	}
	errorLogs := observed.FilterLevelExact(zap.ErrorLevel).All()
	if len(errorLogs) != 1 {
		t.Fatalf("logged %d errors, want 1 for one broken version", len(errorLogs))
	}
	if logged := fmt.Sprint(errorLogs[0].ContextMap()); strings.Contains(logged, rec.Hash) || strings.Contains(logged, plain[13:]) {
		t.Fatalf("log leaks key material: %s", logged)
	}

	writeFile(t, path, strings.Replace(string(good), `"revoked": false`, `"revoked": true`, 1))
	checkResult(t, Principal{}, lookup(), Principal{}, msgAPIKeyRevoked, plain)
	if err := server.LastError(); err != nil {
		t.Fatalf("LastError after the fix = %v", err)
	}

	if err := os.Remove(path); err != nil { // a missing file is "no keys", not an error
		t.Fatal(err)
	}
	checkResult(t, Principal{}, lookup(), Principal{}, msgAPIKeyInvalid, plain)
	if err := server.LastError(); err != nil {
		t.Fatalf("LastError without a file = %v", err)
	}
}

// writeFile replaces path the way an editor might: a new file renamed in.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".edit"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
