package devcaddy

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// TestCaddyfileAdapt checks each testdata/caddyfile_adapt/*.caddyfiletest
// (a Caddyfile, a ---------- line, its JSON): the corpus option maps onto
// "corpus" and is left out when not given.
func TestCaddyfileAdapt(t *testing.T) {
	files, err := filepath.Glob("testdata/caddyfile_adapt/*.caddyfiletest")
	if err != nil || len(files) == 0 {
		t.Fatalf("no adapt goldens: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			in, want, ok := strings.Cut(string(raw), "----------")
			if !ok {
				t.Fatal("no ---------- separator")
			}
			if !caddytest.CompareAdapt(t, f, in, "caddyfile", strings.TrimSpace(want)) {
				t.Error("adapted JSON differs")
			}
		})
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
		t.Run(name, func(t *testing.T) {
			var u caddyfile.Unmarshaler = new(DevRAGFlow)
			if strings.HasPrefix(input, "wikigate_dev_meilisearch") {
				u = new(DevMeilisearch)
			}
			if err := u.UnmarshalCaddyfile(caddyfile.NewTestDispenser(input)); err == nil {
				t.Errorf("accepted %q", input)
			}
		})
	}
}

// get provisions h and sends it one authorized GET.
func get(t *testing.T, h interface {
	caddy.Provisioner
	caddyhttp.MiddlewareHandler
}, target, key string) *httptest.ResponseRecorder {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
	defer cancel()
	if err := h.Provision(ctx); err != nil {
		t.Fatalf("provision: %v", err)
	}
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	if err := h.ServeHTTP(rec, req, nil); err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestCorpusEmptyStartsMeilisearchWithoutIndex(t *testing.T) {
	t.Setenv("DEVCADDY_TEST_CORPUS", "empty")
	for corpus, want := range map[string]int{"": 200, "sample": 200, "empty": 404, "{env.DEVCADDY_TEST_CORPUS}": 404} {
		t.Run("corpus "+corpus, func(t *testing.T) {
			rec := get(t, &DevMeilisearch{MasterKey: "master", Corpus: corpus}, "/indexes/wiki_pages", "master")
			if rec.Code != want {
				t.Errorf("GET /indexes/wiki_pages: %d %s, want %d", rec.Code, rec.Body, want)
			}
		})
	}
}

func TestCorpusEmptyStartsRAGFlowWithoutDatasets(t *testing.T) {
	for corpus, want := range map[string]string{"": `"total_datasets":12`, "sample": `"total_datasets":12`, "empty": `"total_datasets":0`} {
		t.Run("corpus "+corpus, func(t *testing.T) {
			rec := get(t, &DevRAGFlow{APIKey: "ragflow-key", Corpus: corpus}, "/api/v1/datasets?page_size=100", "ragflow-key")
			if !strings.Contains(rec.Body.String(), want) {
				t.Errorf("datasets: %s, want %s", rec.Body, want)
			}
		})
	}
}

func TestCorpusOtherValuesAreRefused(t *testing.T) {
	for name, p := range map[string]caddy.Provisioner{
		"meilisearch": &DevMeilisearch{MasterKey: "master", Corpus: "samples"},
		"ragflow":     &DevRAGFlow{APIKey: "ragflow-key", Corpus: "none"},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
			defer cancel()
			err := p.Provision(ctx)
			if err == nil || !strings.Contains(err.Error(), "corpus must be empty or sample") {
				t.Errorf("provision: %v", err)
			}
		})
	}
}
