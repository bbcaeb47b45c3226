package devragflow

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestRequestLogRecordsWhatWasAsked(t *testing.T) {
	s := newTestServer(t)
	post(t, s, "/api/v1/retrieval", map[string]any{"dataset_ids": []any{dsKgentMain, dsGatewayMain},
		"question": "secret question about helm"})
	post(t, s, "/api/v1/retrieval", map[string]any{"dataset_ids": []any{zeroDataset}, "question": "q"})
	call(t, s, http.MethodPost, "/api/v1/chat/completions", map[string]any{}, "Bearer wrong-key")
	post(t, s, "/api/v1/chat/completions", map[string]any{"messages": []any{
		map[string]any{"role": "user", "content": "private prompt text"}}})
	call(t, s, http.MethodGet, "/api/v1/system/healthz", nil, "")

	got := s.Requests()
	want := []LoggedRequest{
		{Method: "POST", Path: "/api/v1/retrieval", Authorized: true, DatasetIDs: []string{dsKgentMain, dsGatewayMain}, Status: 200, Code: 0},
		{Method: "POST", Path: "/api/v1/retrieval", Authorized: true, DatasetIDs: []string{zeroDataset}, Status: 200, Code: 102},
		{Method: "POST", Path: "/api/v1/chat/completions", Authorized: false, Status: 401, Code: 401},
		{Method: "POST", Path: "/api/v1/chat/completions", Authorized: true, Status: 200, Code: 0},
		{Method: "GET", Path: "/api/v1/system/healthz", Authorized: true, Status: 200, Code: 0},
	}
	if len(got) != len(want) {
		t.Fatalf("logged %d requests, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g := got[i]
		if g.Time.IsZero() {
			t.Errorf("entry %d has no time", i)
		}
		g.Time = want[i].Time
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(want[i])
		if string(gj) != string(wj) {
			t.Errorf("entry %d = %s, want %s", i, gj, wj)
		}
	}
	raw, _ := json.Marshal(got)
	for _, secret := range []string{testKey, "wrong-key", "secret question", "private prompt"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("log leaks %q", secret)
		}
	}
}

func TestRequestLogIsBounded(t *testing.T) {
	s, err := New(Config{APIKey: testKey, Corpus: testCorpus(t), LogSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/a", "/b", "/c", "/d", "/e"} {
		call(t, s, http.MethodGet, p, nil, "")
	}
	var paths []string
	for _, r := range s.Requests() {
		paths = append(paths, r.Path)
	}
	if strings.Join(paths, " ") != "/c /d /e" {
		t.Errorf("paths = %v, want the last three, oldest first", paths)
	}
}

func TestDevRequestsEndpoint(t *testing.T) {
	s := newTestServer(t)
	post(t, s, "/api/v1/retrieval", map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "helm"})
	auth := "Bearer " + testKey

	out := decode(t, call(t, s, http.MethodGet, "/_dev/requests", nil, auth))
	reqs := out["requests"].([]any)
	if len(reqs) != 1 {
		t.Fatalf("requests = %v, want the one retrieval (dev calls are not logged)", reqs)
	}
	entry := reqs[0].(map[string]any)
	if entry["path"] != "/api/v1/retrieval" || entry["datasetIds"].([]any)[0] != dsKgentMain || entry["status"] != 200.0 {
		t.Errorf("entry = %v", entry)
	}

	if rec := call(t, s, http.MethodDelete, "/_dev/requests", nil, auth); rec.Code != http.StatusOK {
		t.Fatalf("DELETE status = %d", rec.Code)
	}
	out = decode(t, call(t, s, http.MethodGet, "/_dev/requests", nil, auth))
	if n := len(out["requests"].([]any)); n != 0 || len(s.Requests()) != 0 {
		t.Errorf("after DELETE: %d entries over HTTP, %d in Requests()", n, len(s.Requests()))
	}
}
