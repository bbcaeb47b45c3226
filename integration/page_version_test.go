package integration

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestHumanAsksOnAVersionedPage: a question asked on the v1.0 page is
// answered from v1.0 (its datasets, its citations), not from main.
func TestHumanAsksOnAVersionedPage(t *testing.T) {
	g := startGate(t, gateOptions{})
	r := g.post("/answer/ask", nil, `{"question":"How do I configure agent memory?","page":{"url":"/v1.0/system/components/kunora-kgent/"}}`)
	if r.Status != 200 {
		t.Fatalf("ask: %d %s", r.Status, r.Body)
	}
	body := r.json(t)
	if got := body["audit"].(map[string]any)["scope"]; got != "v1.0:"+kgentPath {
		t.Fatalf("audit scope = %v, want v1.0:%s", got, kgentPath)
	}
	citations := body["citations"].([]any)
	if len(citations) == 0 {
		t.Fatalf("want a cited answer: %s", r.Body)
	}
	checkCitations(t, citations, "kunora-kgent", "v1.0", kgentPath)
	if ids := lastRetrievalDatasets(t, g); !slices.Equal(ids, []string{kgentV1Approved}) {
		t.Fatalf("RAGFlow retrieval datasets = %v, want only kunora-kgent v1.0 approved", ids)
	}
}

// TestHumanOnAVersionedPageNamingAProject: the page's version is the
// default even when the question names its project.
func TestHumanOnAVersionedPageNamingAProject(t *testing.T) {
	g := startGate(t, gateOptions{})
	r := g.post("/answer/ask", nil, `{"question":"How do I configure agent memory?","scope":{"projects":["kunora-kgent"]},"page":{"url":"/v1.0/system/components/kunora-kgent/memory"}}`)
	if r.Status != 200 || r.json(t)["audit"].(map[string]any)["scope"] != "v1.0:"+kgentPath {
		t.Fatalf("ask naming the project on a v1.0 page: %d %s", r.Status, r.Body)
	}
	r = g.post("/answer/ask", nil, `{"question":"How do I configure agent memory?","scope":{"version":"main"},"page":{"url":"/v1.0/system/components/kunora-kgent/"}}`)
	if r.Status != 200 || r.json(t)["audit"].(map[string]any)["scope"] != "main:"+kgentPath {
		t.Fatalf("a requested version must win over the page's: %d %s", r.Status, r.Body)
	}
}

// TestHumanOnAnUnpublishedVersionIsRefused: a page URL naming a version
// nobody publishes is forbidden_scope, never quietly answered from main.
func TestHumanOnAnUnpublishedVersionIsRefused(t *testing.T) {
	g := startGate(t, gateOptions{})
	r := g.post("/answer/ask", nil, `{"question":"How do I configure agent memory?","page":{"url":"/v9.9/system/components/kunora-kgent/"}}`)
	if r.Status != 403 || r.errorCode(t) != "forbidden_scope" {
		t.Fatalf("ask on a v9.9 page: %d %s", r.Status, r.Body)
	}
}

// TestPageURLWithoutItsTrailingSlash: a docs host that serves a section's
// index at /system/x (no slash) gets the same default scope as /system/x/,
// the page's project, not the public default.
func TestPageURLWithoutItsTrailingSlash(t *testing.T) {
	g := startGate(t, gateOptions{})
	for _, url := range []string{"/system/components/kunora-kgent/", "/system/components/kunora-kgent", "/system/components/kunora-kgent/index.md"} {
		r := g.post("/answer/ask", nil, `{"question":"How do I configure agent memory?","page":{"url":"`+url+`"}}`)
		if got := r.json(t)["audit"].(map[string]any)["scope"]; r.Status != 200 || got != "main:"+kgentPath {
			t.Errorf("page %s: %d, audit scope %v, want main:%s", url, r.Status, got, kgentPath)
		}
	}
}

// TestPageNamedTwiceIsRefused: a page given by both path and url could
// name two pages; the gate refuses rather than pick one.
func TestPageNamedTwiceIsRefused(t *testing.T) {
	g := startGate(t, gateOptions{})
	r := g.post("/answer/ask", nil, `{"question":"How do I configure agent memory?","page":{"path":"publish/system/components/kunora-gateway/index.md","url":"/v1.0/system/components/kunora-kgent/"}}`)
	if r.Status != 400 || r.errorCode(t) != "invalid_request" || !strings.Contains(errorMessage(t, r), "a path or a url, not both") {
		t.Fatalf("page with a path and a url: %d %s", r.Status, r.Body)
	}
}

// lastRetrievalDatasets are the dataset ids of the last retrieval the
// development RAGFlow received.
func lastRetrievalDatasets(t *testing.T, g *gate) []string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, g.ragURL+"/_dev/requests", nil)
	req.Header.Set("Authorization", "Bearer "+ragflowKey)
	var log struct {
		Requests []struct {
			Path       string
			DatasetIDs []string `json:"datasetIds"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(g.do(req).Body, &log); err != nil {
		t.Fatal(err)
	}
	for i := len(log.Requests) - 1; i >= 0; i-- {
		if log.Requests[i].Path == "/api/v1/retrieval" {
			return log.Requests[i].DatasetIDs
		}
	}
	t.Fatal("RAGFlow received no retrieval")
	return nil
}
