package devragflow

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wikigate/wikigate/samplewiki"
)

const testKey = "ragflow-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"

// Dataset ids of the test catalog.
const (
	dsKgentMain    = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1"
	dsKgentWorking = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2"
	dsKgentV1      = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa3"
	dsGatewayMain  = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa4"
	dsOpsEmpty     = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa5"
)

const testCatalog = `[
 {"id":"` + dsKgentMain + `","name":"kgent main approved","project":"kunora-kgent","version":"main","status":"approved"},
 {"id":"` + dsKgentWorking + `","name":"kgent main working","project":"kunora-kgent","version":"main","status":"working"},
 {"id":"` + dsKgentV1 + `","name":"kgent v1.0 approved","project":"kunora-kgent","version":"v1.0","status":"approved"},
 {"id":"` + dsGatewayMain + `","name":"gateway main approved","project":"kunora-gateway","version":"main","status":"approved"},
 {"id":"` + dsOpsEmpty + `","name":"ops main approved","project":"kunora-ops","version":"main","status":"approved"}
]`

func page(title, project, status, body string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte("---\ntitle: " + title + "\nproject: " + project +
		"\nstatus: " + status + "\nupdated: 2026-10-02\n---\n" + body)}
}

// testCorpus is a small wiki whose pages all mention "kunora".
func testCorpus(t *testing.T) *samplewiki.Corpus {
	t.Helper()
	fsys := fstest.MapFS{
		"datasets.json": {Data: []byte(testCatalog)},
		"pages/main/publish/system/components/kunora-kgent/index.md": page("kunora-kgent overview", "kunora-kgent", "approved",
			"# kunora-kgent overview\n\nkunora-kgent is the agent runtime of the Kunora platform.\n\n"+
				"## Deployment\n\nDeploy kunora-kgent with the helm chart. The chart installs one runtime per namespace.\n\n"+
				"## Configuration\n\nSettings live in kgent.yaml. Restart the pod after editing them.\n"),
		"pages/main/publish/system/components/kunora-kgent/tools.md": page("kunora-kgent tools", "kunora-kgent", "approved",
			"# Tools\n\nkunora-kgent calls tools through the tool registry.\n"),
		"pages/main/publish/system/components/kunora-kgent-legacy/index.md": page("legacy kgent", "kunora-kgent", "approved",
			"# Legacy\n\nThe legacy kunora agent is retired.\n"),
		"pages/main/drafts/kunora-kgent/roadmap.md": page("kgent roadmap", "kunora-kgent", "working",
			"# Roadmap\n\nkunora-kgent will gain memory next quarter.\n"),
		"pages/v1.0/publish/system/components/kunora-kgent/index.md": page("kunora-kgent 1.0", "kunora-kgent", "approved",
			"# kunora-kgent 1.0\n\nVersion 1.0 of kunora-kgent deploys with a shell script.\n"),
		"pages/main/publish/system/components/kunora-gateway/index.md": page("kunora-gateway overview", "kunora-gateway", "approved",
			"# kunora-gateway\n\nThe kunora gateway enforces rate limiting for every tenant.\n\n## 限流\n\n网关对每个租户限流。\n"),
	}
	c, err := samplewiki.LoadFS(fsys)
	if err != nil {
		t.Fatalf("loading test corpus: %v", err)
	}
	return c
}

func newTestServer(t *testing.T) *Server {
	t.Helper()
	s, err := New(Config{APIKey: testKey, Corpus: testCorpus(t)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// call sends a request to s; a non-nil body is JSON-encoded unless it is
// a string, which is sent as is.
func call(t *testing.T, s http.Handler, method, path string, body any, auth string) *httptest.ResponseRecorder {
	t.Helper()
	var reader *bytes.Reader
	switch b := body.(type) {
	case nil:
		reader = bytes.NewReader(nil)
	case string:
		reader = bytes.NewReader([]byte(b))
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		reader = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, reader)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec
}

// post sends an authorized JSON POST.
func post(t *testing.T, s http.Handler, path string, body any) *httptest.ResponseRecorder {
	t.Helper()
	return call(t, s, http.MethodPost, path, body, "Bearer "+testKey)
}

func decode(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("decoding %q: %v", rec.Body.String(), err)
	}
	return out
}

func fixture(t *testing.T, name string) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(fixtureBytes(t, name), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func fixtureBytes(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func sameJSON(t *testing.T, got, want map[string]any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Errorf("body = %s, want %s", g, w)
	}
}

func keysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// retrieve posts a retrieval request and returns its data, failing on a
// non-zero code.
func retrieve(t *testing.T, s http.Handler, body map[string]any) map[string]any {
	t.Helper()
	out := decode(t, post(t, s, "/api/v1/retrieval", body))
	if out["code"] != 0.0 {
		t.Fatalf("retrieval failed: %v", out)
	}
	data, _ := out["data"].(map[string]any)
	return data
}

func chunksOf(data map[string]any) []map[string]any {
	var out []map[string]any
	for _, c := range data["chunks"].([]any) {
		out = append(out, c.(map[string]any))
	}
	return out
}

// docIDByPath finds a document id through the documents listing.
func docIDByPath(t *testing.T, s http.Handler, datasetID, path string) string {
	t.Helper()
	out := decode(t, call(t, s, http.MethodGet, "/api/v1/datasets/"+datasetID+"/documents", nil, "Bearer "+testKey))
	for _, d := range out["data"].(map[string]any)["docs"].([]any) {
		doc := d.(map[string]any)
		if doc["meta_fields"].(map[string]any)["path"] == path {
			return doc["id"].(string)
		}
	}
	t.Fatalf("no document %s in dataset %s", path, datasetID)
	return ""
}

// sseEvents splits a stream body into its event payloads, checking the
// framing: "data:" with no space, one line of JSON, a blank line after.
func sseEvents(t *testing.T, body string) []string {
	t.Helper()
	if !strings.HasSuffix(body, "\n\n") {
		t.Fatalf("stream does not end with a blank line: %q", body)
	}
	var events []string
	for _, ev := range strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		if !strings.HasPrefix(ev, "data:{") || strings.Contains(ev, "\n") {
			t.Fatalf("malformed event %q", ev)
		}
		events = append(events, strings.TrimPrefix(ev, "data:"))
	}
	return events
}
