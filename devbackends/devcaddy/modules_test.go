package devcaddy

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddytest"
)

// TestCaddyfileAdapt checks that testdata/dev_backends.caddyfiletest (a
// Caddyfile, a ---------- line, its JSON) adapts as written: the corpus
// option maps onto "corpus" and is left out when not given.
func TestCaddyfileAdapt(t *testing.T) {
	raw, err := os.ReadFile("testdata/dev_backends.caddyfiletest")
	if err != nil {
		t.Fatal(err)
	}
	in, want, ok := strings.Cut(string(raw), "----------")
	if !ok {
		t.Fatal("no ---------- separator")
	}
	if !caddytest.CompareAdapt(t, "dev_backends.caddyfiletest", in, "caddyfile", strings.TrimSpace(want)) {
		t.Error("adapted JSON differs")
	}
}

func TestUnmarshalCaddyfileErrors(t *testing.T) {
	for name, input := range map[string]string{
		"unknown option":    "wikigate_dev_ragflow {\n index x\n}",
		"option twice":      "wikigate_dev_ragflow {\n corpus empty\n corpus sample\n}",
		"inline argument":   "wikigate_dev_ragflow extra",
		"no value":          "wikigate_dev_ragflow {\n corpus\n}",
		"two values":        "wikigate_dev_ragflow {\n corpus empty sample\n}",
		"meili unknown key": "wikigate_dev_meilisearch {\n api_key k\n}",
	} {
		d := caddyfile.NewTestDispenser(input)
		var err error
		if strings.HasPrefix(input, "wikigate_dev_meilisearch") {
			err = new(DevMeilisearch).UnmarshalCaddyfile(d)
		} else {
			err = new(DevRAGFlow).UnmarshalCaddyfile(d)
		}
		if err == nil {
			t.Errorf("%s: accepted %q", name, input)
		}
	}
}

func TestCorpusEmptyStartsMeilisearchWithoutIndex(t *testing.T) {
	t.Setenv("DEVCADDY_TEST_CORPUS", "empty")
	for corpus, want := range map[string]int{"": 200, "sample": 200, "empty": 404, "{env.DEVCADDY_TEST_CORPUS}": 404} {
		m := &DevMeilisearch{MasterKey: "master", Corpus: corpus}
		if err := m.Provision(caddy.Context{}); err != nil {
			t.Fatalf("corpus %q: %v", corpus, err)
		}
		req := httptest.NewRequest(http.MethodGet, "/indexes/wiki_pages", nil)
		req.Header.Set("Authorization", "Bearer master")
		rec := httptest.NewRecorder()
		if err := m.ServeHTTP(rec, req, nil); err != nil || rec.Code != want {
			t.Errorf("corpus %q: GET /indexes/wiki_pages %d %v, want %d", corpus, rec.Code, err, want)
		}
	}
}

func TestCorpusEmptyStartsRAGFlowWithoutDatasets(t *testing.T) {
	for corpus, want := range map[string]string{"sample": `"total_datasets":12`, "empty": `"total_datasets":0`} {
		m := &DevRAGFlow{APIKey: "ragflow-key", Corpus: corpus}
		if err := m.Provision(caddy.Context{}); err != nil {
			t.Fatalf("corpus %q: %v", corpus, err)
		}
		req := httptest.NewRequest(http.MethodGet, "/api/v1/datasets?page_size=100", nil)
		req.Header.Set("Authorization", "Bearer ragflow-key")
		rec := httptest.NewRecorder()
		if err := m.ServeHTTP(rec, req, nil); err != nil || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("corpus %q: datasets %s, want %s", corpus, rec.Body.String(), want)
		}
	}
}

func TestCorpusOtherValuesAreRefused(t *testing.T) {
	for _, p := range []caddy.Provisioner{
		&DevMeilisearch{MasterKey: "master", Corpus: "samples"},
		&DevRAGFlow{APIKey: "ragflow-key", Corpus: "none"},
	} {
		err := p.Provision(caddy.Context{})
		if err == nil || !strings.Contains(err.Error(), "corpus must be empty or sample") {
			t.Errorf("%T: %v", p, err)
		}
	}
}
