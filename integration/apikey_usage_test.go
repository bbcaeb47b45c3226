package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/identity"
)

// TestAPIKeyIDAndLastUsed: a call made with an API key is audited with the
// key's public prefix (never the key), and `wikigate key list` (another
// process reading the key store) shows when the key was last used, while
// the key file itself is never rewritten by the gate.
func TestAPIKeyIDAndLastUsed(t *testing.T) {
	g := startGate(t, gateOptions{})
	auditFile := filepath.Join(t.TempDir(), "audit.log")
	g.config = strings.Replace(g.config, "\tlog {\n\t\toutput discard\n\t}\n",
		"\tlog {\n\t\toutput discard\n\t}\n\tlog audit {\n\t\toutput file "+auditFile+"\n\t\tinclude http.handlers.wikigate.audit\n\t}\n", 1)
	g.reload()

	cli, err := identity.OpenKeyStore(g.keysFile)
	if err != nil {
		t.Fatal(err)
	}
	key, rec, err := cli.Create("kunora-coding-agent", "ci", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := lastUsed(t, g.keysFile, rec.Prefix); got != nil {
		t.Fatalf("a new key shows last used %v", got)
	}
	keyFile, _ := os.ReadFile(g.keysFile)
	before := time.Now().Add(-time.Second)
	r := g.post("/agent/tools/search", map[string]string{identity.HeaderAPIKey: key}, `{"question":"agent memory"}`)
	if r.Status != 200 {
		t.Fatalf("search with an api key: %d %s", r.Status, r.Body)
	}

	record := auditRecord(t, auditFile, r.Header.Get("X-Request-Id"))
	if record["key_id"] != rec.Prefix || record["credential"] != "api_key" {
		t.Errorf("audit record key_id = %v (credential %v), want %s", record["key_id"], record["credential"], rec.Prefix)
	}
	if raw, _ := os.ReadFile(auditFile); bytes.Contains(raw, []byte(key[len("wgk_")+8+1:])) {
		t.Error("the audit log holds the key's secret part")
	}

	deadline := time.Now().Add(5 * time.Second)
	for {
		if got := lastUsed(t, g.keysFile, rec.Prefix); got != nil {
			if got.Before(before) {
				t.Errorf("key list shows last used %v, before the call", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("key list never showed the key as used")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if after, _ := os.ReadFile(g.keysFile); !bytes.Equal(after, keyFile) {
		t.Error("using a key rewrote the key file")
	}
	refusedKeyAudited(t, g, cli, key, rec.Prefix, auditFile)
}

// refusedKeyAudited: once revoked, the key is refused, and the refusal's
// audit record names the key's prefix and agent (the caller held the real
// key: the security team sees who still uses it); a made-up key with the
// same prefix names nothing.
func refusedKeyAudited(t *testing.T, g *gate, cli *identity.KeyStore, key, prefix, auditFile string) {
	t.Helper()
	if err := cli.Revoke(prefix); err != nil {
		t.Fatal(err)
	}
	var r response
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if r = g.post("/agent/tools/search", map[string]string{identity.HeaderAPIKey: key}, `{"question":"agent memory"}`); r.Status == 401 {
			break
		}
	}
	if r.Status != 401 || !strings.Contains(string(r.Body), "api key revoked") {
		t.Fatalf("the revoked key: %d %s", r.Status, r.Body)
	}
	record := auditRecord(t, auditFile, r.Header.Get("X-Request-Id"))
	if record["key_id"] != prefix || record["caller_id"] != "kunora-coding-agent" || record["result"] == "ok" {
		t.Errorf("the revoked key's refusal is audited as %v", record)
	}
	forged := key[:len(key)-4] + "AAAA"
	r = g.post("/agent/tools/search", map[string]string{identity.HeaderAPIKey: forged}, `{"question":"agent memory"}`)
	if record := auditRecord(t, auditFile, r.Header.Get("X-Request-Id")); r.Status != 401 || record["key_id"] != nil {
		t.Errorf("a forged key with the prefix: %d, audited as %v", r.Status, record)
	}
}

// lastUsed is what `wikigate key list` shows for prefix, read afresh.
func lastUsed(t *testing.T, keysFile, prefix string) *time.Time {
	t.Helper()
	store, err := identity.OpenKeyStore(keysFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range store.List() {
		if r.Prefix == prefix {
			return r.LastUsedAt
		}
	}
	t.Fatalf("key %s is not listed", prefix)
	return nil
}

// auditRecord finds the audit record of requestID, waiting for the log.
func auditRecord(t *testing.T, file, requestID string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if f, err := os.Open(file); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				var m map[string]any
				if json.Unmarshal(sc.Bytes(), &m) == nil && m["request_id"] == requestID {
					f.Close()
					return m
				}
			}
			f.Close()
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no audit record for request %s", requestID)
	return nil
}
