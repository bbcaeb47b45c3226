package integration

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

const (
	gatewayPath = "publish/system/components/kunora-gateway"
	extrasPath  = "publish/system/components/kunora-kgent-extras"
)

// TestGetPageBatchAnswersEachPath: a batch that mixes readable pages with
// pages outside the grant returns the readable ones and a forbidden_scope
// entry per other path (protocol: seed get_document_info), and never names
// the forbidden paths to Meilisearch.
func TestGetPageBatchAnswersEachPath(t *testing.T) {
	g := startGate(t, gateOptions{})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	r := g.post("/agent/tools/get_page", tok, `{"paths":["`+gatewayPath+`/index.md","`+kgentPath+`/index.md","`+
		extrasPath+`/index.md","`+kgentPath+`/no-such-page.md"]}`)
	if r.Status != 200 {
		t.Fatalf("mixed batch: %d %s", r.Status, r.Body)
	}
	body := r.json(t)
	pages := body["pages"].([]any)
	if len(pages) != 1 || pages[0].(map[string]any)["path"] != kgentPath+"/index.md" || pages[0].(map[string]any)["content"] == "" {
		t.Fatalf("pages: want only the readable page, got %s", r.Body)
	}
	want := [][2]string{
		{gatewayPath + "/index.md", "forbidden_scope"},
		{extrasPath + "/index.md", "forbidden_scope"},
		{kgentPath + "/no-such-page.md", "not_found"},
	}
	errs := body["errors"].([]any)
	if len(errs) != len(want) {
		t.Fatalf("errors: want %v, got %s", want, r.Body)
	}
	for i, w := range want {
		e := errs[i].(map[string]any)
		if e["path"] != w[0] || e["code"] != w[1] || e["message"] == "" {
			t.Errorf("errors[%d] = %v, want path %s code %s", i, e, w[0], w[1])
		}
	}
	if strings.Contains(string(r.Body), "kunora-gateway overview") {
		t.Error("the forbidden page's content leaked")
	}
	filter := lastMeiliFilter(t, g)
	if strings.Contains(filter, "kunora-gateway") || strings.Contains(filter, "kunora-kgent-extras") {
		t.Fatalf("Meilisearch was asked about a forbidden path: %s", filter)
	}
	if !strings.Contains(filter, kgentPath+"/index.md") {
		t.Fatalf("Meilisearch filter lacks the readable page: %s", filter)
	}
}

// TestGetPageBatchAllOutsideIsDenied: a batch with no readable page stays a
// 403 forbidden_scope and reaches no backend.
func TestGetPageBatchAllOutsideIsDenied(t *testing.T) {
	g := startGate(t, gateOptions{})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	before := g.backendRequests(g.meiliURL, meiliKey)
	r := g.post("/agent/tools/get_page", tok, `{"paths":["`+gatewayPath+`/index.md","`+extrasPath+`/index.md"]}`)
	if r.Status != 403 || r.errorCode(t) != "forbidden_scope" {
		t.Fatalf("all-forbidden batch: %d %s", r.Status, r.Body)
	}
	msg := r.json(t)["error"].(map[string]any)["message"].(string)
	if !strings.Contains(msg, gatewayPath+"/index.md") || !strings.Contains(msg, extrasPath+"/index.md") {
		t.Errorf("the denial does not name each page: %q", msg)
	}
	// +1: the log read itself is logged by the development backend.
	if after := g.backendRequests(g.meiliURL, meiliKey); after != before+1 {
		t.Fatalf("a denied batch reached Meilisearch (%d new requests)", after-before-1)
	}
}

// lastMeiliFilter is the filter of the last search the development
// Meilisearch received.
func lastMeiliFilter(t *testing.T, g *gate) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, g.meiliURL+"/_dev/requests", nil)
	req.Header.Set("Authorization", "Bearer "+meiliKey)
	var log struct {
		Requests []struct {
			Path, Filter string
		} `json:"requests"`
	}
	if err := json.Unmarshal(g.do(req).Body, &log); err != nil {
		t.Fatal(err)
	}
	for i := len(log.Requests) - 1; i >= 0; i-- {
		if strings.HasSuffix(log.Requests[i].Path, "/search") {
			return log.Requests[i].Filter
		}
	}
	t.Fatal("Meilisearch received no search")
	return ""
}
