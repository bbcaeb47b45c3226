package doctor

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/devbackends/devmeili"
	"github.com/wikigate/wikigate/devbackends/devragflow"
)

const (
	testMaster = "doctor-test-master-key"
	testRAGKey = "ragflow-doctortestkey"
)

// devBackends starts the development Meilisearch and RAGFlow and returns
// a Config aimed at them the way the default Caddyfile aims the gate: a
// search-only tenant key for the gate, the master key for doctor's reads.
func devBackends(t *testing.T) (Config, *httptest.Server) {
	t.Helper()
	ms, err := devmeili.New(devmeili.Config{MasterKey: testMaster})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := devragflow.New(devragflow.Config{APIKey: testRAGKey})
	if err != nil {
		t.Fatal(err)
	}
	meiliSrv, ragSrv := httptest.NewServer(ms), httptest.NewServer(rs)
	t.Cleanup(meiliSrv.Close)
	t.Cleanup(ragSrv.Close)
	data, err := os.ReadFile("testdata/data.json")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := ParseCatalog(data)
	if err != nil {
		t.Fatal(err)
	}
	uid, key := devmeili.SearchKeyFor(testMaster)
	return Config{
		Meili: MeiliTarget{
			URL: meiliSrv.URL, Index: "wiki_pages", APIKey: key, TenantKey: key, TenantKeyUID: uid, AdminKey: testMaster,
		},
		RAGFlow: &RAGFlowTarget{URL: ragSrv.URL, APIKey: testRAGKey},
		Catalog: cat,
	}, meiliSrv
}

func printed(r *Report) string {
	var b bytes.Buffer
	r.Print(&b)
	return b.String()
}

func TestDevBackendsPassEveryCheck(t *testing.T) {
	cfg, _ := devBackends(t)
	r := Run(context.Background(), cfg)
	out := printed(r)
	if r.Failed() {
		t.Fatalf("the development backends should satisfy the contract:\n%s", out)
	}
	for _, want := range []string{"filterable attributes cover", "search with a tenant token", "carry the citation metadata", "version 1.50.0"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestMissingFilterableAttributeFailsNamingIt(t *testing.T) {
	cfg, meiliSrv := devBackends(t)
	body := `{"filterableAttributes":["id","project","version","status","path"]}`
	req, _ := http.NewRequest(http.MethodPatch, meiliSrv.URL+"/indexes/wiki_pages/settings", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testMaster)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("settings update: %v %v", resp, err)
	}
	resp.Body.Close()
	r := Run(context.Background(), cfg)
	out := printed(r)
	if !r.Failed() {
		t.Fatalf("a missing filterable attribute passed:\n%s", out)
	}
	if !strings.Contains(out, "FAIL  meilisearch  index \"wiki_pages\": filterable attributes lack pathPrefixes") {
		t.Errorf("the failure does not name pathPrefixes:\n%s", out)
	}
}

func TestUnknownAndForeignDatasetsFail(t *testing.T) {
	cfg, _ := devBackends(t)
	cfg.Catalog.Datasets["kunora-ops"]["main"]["approved"] = []string{"00000000000000000000000000000000"}
	r := Run(context.Background(), cfg)
	out := printed(r)
	if !r.Failed() || !strings.Contains(out, "dataset 00000000000000000000000000000000 (project kunora-ops, version main, status approved): does not exist or the gate's RAGFlow key cannot access it") {
		t.Fatalf("an unknown catalog dataset was not reported:\n%s", out)
	}
}

func TestDatasetFiledUnderTheWrongStatusFails(t *testing.T) {
	cfg, _ := devBackends(t)
	ds := cfg.Catalog.Datasets["kunora-ops"]["main"]
	ds["approved"], ds["working"] = ds["working"], ds["approved"]
	r := Run(context.Background(), cfg)
	if out := printed(r); !r.Failed() || !strings.Contains(out, `meta_fields status is "working" but the catalog files this dataset under "approved"`) {
		t.Fatalf("swapped statuses were not reported:\n%s", out)
	}
}

func TestGateHoldingTheMasterKeyIsWarnedAbout(t *testing.T) {
	cfg, _ := devBackends(t)
	cfg.Meili.APIKey, cfg.Meili.TenantKey, cfg.Meili.TenantKeyUID = testMaster, "", ""
	out := printed(Run(context.Background(), cfg))
	if !strings.Contains(out, "warn  meilisearch  the gate's api_key can read index settings") {
		t.Fatalf("a master key given to the gate was not warned about:\n%s", out)
	}
}

func TestUnreachableMeilisearchFails(t *testing.T) {
	cfg, meiliSrv := devBackends(t)
	meiliSrv.Close()
	r := Run(context.Background(), cfg)
	if out := printed(r); !r.Failed() || !strings.Contains(out, "/health: not available") {
		t.Fatalf("a stopped Meilisearch passed:\n%s", out)
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]version{"1.50.0-wikigate-dev": {1, 50, 0}, "v0.27.0-3-gabc": {0, 27, 0}, "v0.26": {0, 26, 0}} {
		if got, ok := parseVersion(in); !ok || got != want {
			t.Errorf("parseVersion(%q) = %v %v, want %v", in, got, ok, want)
		}
	}
	if _, ok := parseVersion("nightly"); ok {
		t.Error("nightly parsed as a version")
	}
}
