package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The shipped Caddyfile gives the gate a search-only Meilisearch key and
// signs a tenant token per search with it (docs/backends.md, Meilisearch
// "Read side: what the gate sends"): the development Meilisearch's request
// log shows every search arriving with a tenant token, none with the master
// key or the plain search key.
func TestShippedCaddyfileSearchesWithTenantTokensNotTheMasterKey(t *testing.T) {
	s := startShipped(t)
	req, _ := http.NewRequest(http.MethodPost, "http://"+s.gate+"/agent/tools/search", strings.NewReader(`{"question":"agent memory"}`))
	req.Header.Set("Authorization", "Bearer "+agentToken(t, "kunora-coding-agent"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "kunora-kgent") {
		t.Fatalf("search through the shipped Caddyfile: %d %s", resp.StatusCode, body)
	}
	searches := 0
	for _, r := range meiliRequestLog(t, s.meili) {
		if !strings.HasSuffix(r.Path, "/search") {
			continue
		}
		searches++
		if r.Auth != "tenant_token" {
			t.Errorf("a search reached Meilisearch with credential %q, want a tenant token", r.Auth)
		}
	}
	if searches == 0 {
		t.Fatal("no search reached the development Meilisearch")
	}
}

type meiliLogged struct {
	Path string `json:"path"`
	Auth string `json:"auth"`
}

func meiliRequestLog(t *testing.T, base string) []meiliLogged {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/_dev/requests", nil)
	req.Header.Set("Authorization", "Bearer "+meiliKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var log struct {
		Requests []meiliLogged `json:"requests"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&log); err != nil || resp.StatusCode != 200 {
		t.Fatalf("request log: %d %v", resp.StatusCode, err)
	}
	return log.Requests
}
