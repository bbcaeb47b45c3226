package integration

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kgentMainApproved is the dataset of kunora-kgent's approved main docs.
const kgentMainApproved = "d092f80af64f8e5e119cee1082c471b4"

func TestDatasetNotAllowedWhenTheCatalogHasNone(t *testing.T) {
	src, _ := filepath.Abs("../rego")
	dir := copyDir(t, src)
	editJSON(t, filepath.Join(dir, "data.json"), func(v any) any { return dropObjectsWithID(v, kgentMainApproved) })
	g := startGate(t, gateOptions{policyDir: dir})
	before := g.backendRequests(g.meiliURL, meiliKey)
	r := g.post("/agent/tools/search", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`)
	if r.Status != 403 || r.errorCode(t) != "dataset_not_allowed" {
		t.Fatalf("got %d %s", r.Status, r.Body)
	}
	if g.backendRequests(g.meiliURL, meiliKey) != before+1 {
		t.Fatal("a call denied for its dataset reached Meilisearch")
	}
}

func TestPolicyEvaluationFailureDenies(t *testing.T) {
	src, _ := filepath.Abs("../rego")
	dir := copyDir(t, src)
	// A second, conflicting definition of the decision for search calls:
	// it compiles, but evaluating it is an error ("multiple outputs").
	writeFile(t, filepath.Join(dir, "zz_conflict.rego"), "package wikigate\n\ndecision := {\"allow\": \"yes\"} if input.tool == \"search\"\n")
	g := startGate(t, gateOptions{policyDir: dir})
	before := g.backendRequests(g.meiliURL, meiliKey)
	r := g.post("/agent/tools/search", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`)
	if r.Status != 503 || r.errorCode(t) != "policy_unavailable" {
		t.Fatalf("got %d %s", r.Status, r.Body)
	}
	if g.backendRequests(g.meiliURL, meiliKey) != before+1 {
		t.Fatal("a call the policy could not decide reached Meilisearch")
	}
}

func TestSearchBackendGarbageIs502(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>upstream error</html>"))
	}))
	t.Cleanup(srv.Close)
	g := startGate(t, gateOptions{meiliURL: srv.URL})
	r := g.post("/agent/tools/search", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`)
	if r.Status != 502 || r.errorCode(t) != "search_unavailable" || strings.Contains(string(r.Body), "upstream error") {
		t.Fatalf("got %d %s", r.Status, r.Body)
	}
}

// TestTenantTokensLetMeilisearchEnforceTheScope configures the gate with the
// development Meilisearch's search key: each call then carries a tenant
// token minted for the decision, which Meilisearch verifies and ANDs with
// the request's filter.
func TestTenantTokensLetMeilisearchEnforceTheScope(t *testing.T) {
	const uid = "7b3c6f2e-8a41-4d5e-9c07-2f1a6b9d4e80" // devmeili's default search key
	mac := hmac.New(sha256.New, []byte(meiliKey))
	mac.Write([]byte(uid))
	searchKey := hex.EncodeToString(mac.Sum(nil))
	g := startGate(t, gateOptions{meiliExtra: "tenant_key " + searchKey + " " + uid})
	r := g.post("/agent/tools/search", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory","limit":50}`)
	if r.Status != 200 || len(r.json(t)["hits"].([]any)) == 0 {
		t.Fatalf("search with tenant tokens: %d %s", r.Status, r.Body)
	}
	if strings.Contains(string(r.Body), "kunora-kgent-extras") {
		t.Fatal("the trap leaked")
	}
	req, _ := http.NewRequest(http.MethodGet, g.meiliURL+"/_dev/requests", nil)
	req.Header.Set("Authorization", "Bearer "+meiliKey)
	var log struct {
		Requests []struct {
			Auth, TenantFilter string
		} `json:"requests"`
	}
	if err := json.Unmarshal(g.do(req).Body, &log); err != nil {
		t.Fatal(err)
	}
	last := log.Requests[len(log.Requests)-1] // this read is logged after its snapshot
	if last.Auth != "tenant_token" || !strings.Contains(last.TenantFilter, "publish/system/components/kunora-kgent") {
		t.Fatalf("Meilisearch did not see a tenant token carrying the scope: %+v (all: %+v)", last, log.Requests)
	}
}

func editJSON(t *testing.T, path string, edit func(any) any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.MarshalIndent(edit(v), "", "  ")
	writeFile(t, path, string(out))
}

// dropObjectsWithID removes, anywhere in v, every object whose "id" is id
// and every list element equal to id (whatever shape the policy data takes).
func dropObjectsWithID(v any, id string) any {
	switch x := v.(type) {
	case []any:
		kept := x[:0]
		for _, e := range x {
			if m, ok := e.(map[string]any); (ok && m["id"] == id) || e == id {
				continue
			}
			kept = append(kept, dropObjectsWithID(e, id))
		}
		return kept
	case map[string]any:
		for k, e := range x {
			if m, ok := e.(map[string]any); ok && m["id"] == id {
				delete(x, k)
				continue
			}
			x[k] = dropObjectsWithID(e, id)
		}
	}
	return v
}
