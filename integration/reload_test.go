package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/identity"
)

// TestPolicyHotReload edits the policy data while the gate runs: the next
// decision follows the edit, and a broken .rego file leaves the last good
// policy serving.
func TestPolicyHotReload(t *testing.T) {
	src, _ := filepath.Abs("../rego")
	dir := copyDir(t, src)
	g := startGate(t, gateOptions{policyDir: dir})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	getPage := func() response {
		return g.post("/agent/tools/get_page", tok, `{"path":"publish/system/components/kunora-kgent/index.md"}`)
	}
	if r := getPage(); r.Status != 200 {
		t.Fatalf("before edit: %d %s", r.Status, r.Body)
	}

	data := filepath.Join(dir, "data.json")
	orig, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(orig), `"get_page",`, ``, 1)
	if edited == string(orig) {
		t.Fatal("could not find get_page in the coding agent's tools to remove")
	}
	writeFile(t, data, edited)
	waitFor(t, "the data edit to take effect", func() bool { return getPage().Status == 403 })
	if code := getPage().errorCode(t); code != "forbidden_tool" {
		t.Fatalf("after removing get_page: %s", code)
	}

	writeFile(t, filepath.Join(dir, "broken.rego"), "package wikigate\n\nthis is not rego {{{\n")
	waitFor(t, "healthz to report the failed reload", func() bool {
		policy := g.do(mustGet(t, g.url+"/healthz")).json(t)["policy"].(map[string]any)
		return policy["lastReloadFailed"] == true && policy["reloadFailures"].(float64) >= 1
	})
	if r := getPage(); r.Status != 403 || r.errorCode(t) != "forbidden_tool" {
		t.Fatalf("a broken policy must leave the previous one serving: %d %s", r.Status, r.Body)
	}
	writeFile(t, data, string(orig))
	_ = os.Remove(filepath.Join(dir, "broken.rego"))
	waitFor(t, "the restored policy", func() bool { return getPage().Status == 200 })
	if g.do(mustGet(t, g.url+"/healthz")).json(t)["policy"].(map[string]any)["lastReloadFailed"] != false {
		t.Fatal("healthz still reports a failed reload after the fix")
	}
}

func TestAPIKeys(t *testing.T) {
	g := startGate(t, gateOptions{})
	store, err := identity.OpenKeyStore(g.keysFile)
	if err != nil {
		t.Fatal(err)
	}
	key, rec, err := store.Create("kunora-coding-agent", "integration", 0)
	if err != nil {
		t.Fatal(err)
	}
	hdr := map[string]string{"X-Agent-Api-Key": key}
	if r := g.post("/agent/tools/search", hdr, `{"question":"agent memory"}`); r.Status != 200 {
		t.Fatalf("a fresh key must work: %d %s", r.Status, r.Body)
	}
	raw, _ := os.ReadFile(g.keysFile)
	if strings.Contains(string(raw), key) {
		t.Fatal("the key store holds the plaintext key")
	}
	if err := store.Revoke(rec.Prefix); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the revocation", func() bool {
		return g.post("/agent/tools/search", hdr, `{"question":"agent memory"}`).Status == 401
	})
	if r := g.post("/agent/tools/search", map[string]string{"X-Agent-Api-Key": "wgk_nope_nope"}, `{"question":"q"}`); r.Status != 401 {
		t.Fatalf("a made-up key: %d", r.Status)
	}
}

func TestHealthz(t *testing.T) {
	g := startGate(t, gateOptions{})
	r := g.do(mustGet(t, g.url+"/healthz"))
	body := r.json(t)
	if r.Status != 200 || body["status"] != "ok" || r.Header.Get("X-Request-Id") == "" {
		t.Fatalf("healthz: %d %s", r.Status, r.Body)
	}
	if rev := body["policy"].(map[string]any)["revision"].(string); len(rev) < 8 {
		t.Fatalf("policy revision missing: %s", r.Body)
	}
	// The shipped policy qualifies for Wasm under the default evaluator.
	if ev := body["policy"].(map[string]any)["evaluator"]; ev != "wasm" {
		t.Fatalf("policy evaluator %v, want wasm: %s", ev, r.Body)
	}
	if !body["backends"].(map[string]any)["meilisearch"].(map[string]any)["reachable"].(bool) {
		t.Fatalf("meilisearch should be reachable: %s", r.Body)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond for up to 30 seconds; reloads are asynchronous. The
// bound is not a speed target: a policy reload compiles the policy, runs
// the team's Rego tests and checks the Wasm evaluator against topdown,
// which under -race, beside the policies package's own tests on CI's two
// cores, once took more than 10 s (TestPolicyLifecycleTestedReload).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestBrokenKeyFileFailsClosed: a hand edit that breaks the key file (here
// a revocation with a trailing comma) must not leave the old keys working.
func TestBrokenKeyFileFailsClosed(t *testing.T) {
	g := startGate(t, gateOptions{})
	store, err := identity.OpenKeyStore(g.keysFile)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := store.Create("kunora-coding-agent", "edit-test", 0)
	if err != nil {
		t.Fatal(err)
	}
	hdr := map[string]string{"X-Agent-Api-Key": key}
	if r := g.post("/agent/tools/search", hdr, `{"question":"agent memory"}`); r.Status != 200 {
		t.Fatalf("a fresh key: %d %s", r.Status, r.Body)
	}
	raw, _ := os.ReadFile(g.keysFile)
	broken := strings.Replace(string(raw), `"revoked": false`, `"revoked": true,`, 1)
	if broken == string(raw) {
		broken = string(raw) + ","
	}
	writeFile(t, g.keysFile, broken)
	waitFor(t, "the broken key file to refuse keys", func() bool {
		return g.post("/agent/tools/search", hdr, `{"question":"agent memory"}`).Status == 401
	})
	health := g.do(mustGet(t, g.url+"/healthz")).json(t)
	if health["status"] != "degraded" || health["apiKeys"].(map[string]any)["usable"] != false {
		t.Fatalf("healthz must show the unusable key file: %v", health)
	}
	writeFile(t, g.keysFile, string(raw))
	waitFor(t, "the repaired key file", func() bool {
		return g.post("/agent/tools/search", hdr, `{"question":"agent memory"}`).Status == 200
	})
}
