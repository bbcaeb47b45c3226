package devcaddy

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// A config reload provisions the new handler before cleaning up the old
// one: what was loaded into the development Meilisearch through the old
// handler is still there through the new one (`wikigate reload` used to
// start the stand-ins empty again, as if the wiki had never been loaded).
func TestDevMeilisearchKeepsItsDataAcrossAReload(t *testing.T) {
	old := &DevMeilisearch{MasterKey: "reload-master", Corpus: "empty"}
	provision(t, old)
	if rec := send(t, old, http.MethodPost, "/indexes", `{"uid":"reloaded"}`, "reload-master"); rec.Code != http.StatusAccepted {
		t.Fatalf("create index: %d %s", rec.Code, rec.Body)
	}
	waitFor(t, old, "/indexes/reloaded", "reload-master")

	next := &DevMeilisearch{MasterKey: "reload-master", Corpus: "empty"}
	provision(t, next)
	if err := old.Cleanup(); err != nil {
		t.Fatal(err)
	}
	defer next.Cleanup()
	if rec := send(t, next, http.MethodGet, "/indexes/reloaded", "", "reload-master"); rec.Code != http.StatusOK {
		t.Errorf("after the reload: GET /indexes/reloaded %d %s, want 200", rec.Code, rec.Body)
	}

	other := &DevMeilisearch{MasterKey: "another-master", Corpus: "empty"}
	provision(t, other)
	defer other.Cleanup()
	if rec := send(t, other, http.MethodGet, "/indexes/reloaded", "", "another-master"); rec.Code != http.StatusNotFound {
		t.Errorf("a server with another key: GET /indexes/reloaded %d, want 404 (a fresh server)", rec.Code)
	}
}

// The same for the development RAGFlow: a dataset created before the
// reload is listed after it.
func TestDevRAGFlowKeepsItsDataAcrossAReload(t *testing.T) {
	old := &DevRAGFlow{APIKey: "reload-key", Corpus: "empty"}
	provision(t, old)
	if rec := send(t, old, http.MethodPost, "/api/v1/datasets", `{"name":"reloaded"}`, "reload-key"); !strings.Contains(rec.Body.String(), `"code":0`) {
		t.Fatalf("create dataset: %d %s", rec.Code, rec.Body)
	}
	next := &DevRAGFlow{APIKey: "reload-key", Corpus: "empty"}
	provision(t, next)
	if err := old.Cleanup(); err != nil {
		t.Fatal(err)
	}
	defer next.Cleanup()
	rec := send(t, next, http.MethodGet, "/api/v1/datasets?page_size=100", "", "reload-key")
	if !strings.Contains(rec.Body.String(), `"name":"reloaded"`) {
		t.Errorf("after the reload the dataset is gone: %s", rec.Body)
	}
}

func provision(t *testing.T, p caddy.Provisioner) {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
	defer cancel()
	if err := p.Provision(ctx); err != nil {
		t.Fatalf("provision: %v", err)
	}
}

func send(t *testing.T, h caddyhttp.MiddlewareHandler, method, target, body, key string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	if err := h.ServeHTTP(rec, req, nil); err != nil {
		t.Fatal(err)
	}
	return rec
}

// waitFor polls until target answers 200 (Meilisearch creates an index
// in a task), for at most a few seconds.
func waitFor(t *testing.T, h caddyhttp.MiddlewareHandler, target, key string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if send(t, h, http.MethodGet, target, "", key).Code == http.StatusOK {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never answered 200", target)
}
