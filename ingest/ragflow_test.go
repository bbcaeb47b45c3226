package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

func TestRAGFlowClientRetries429And5xxNotErrorCodes(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		switch {
		case r.URL.Query().Get("name") == "x":
			w.Write([]byte(`{"code":102,"message":"User 't' lacks permission for dataset 'x'"}`))
		case n == 1:
			w.WriteHeader(http.StatusTooManyRequests)
		case n == 2:
			w.WriteHeader(http.StatusBadGateway)
		default:
			w.Write([]byte(`{"code":0,"data":[{"id":"d1","name":"kgent main approved"}],"total_datasets":1}`))
		}
	}))
	defer srv.Close()
	c := &RAGFlowClient{URL: srv.URL, Key: "k", Backoff: time.Millisecond}
	got, err := c.listDatasets(context.Background())
	if err != nil || len(got) != 1 || got[0].ID != "d1" || calls.Load() != 3 {
		t.Fatalf("datasets %v, err %v after %d calls", got, err, calls.Load())
	}
	calls.Store(0)
	err = c.call(context.Background(), request{method: http.MethodGet, path: "/api/v1/datasets", query: map[string][]string{"name": {"x"}}}, nil)
	var rf *RAGFlowError
	if !errors.As(err, &rf) || rf.Code != 102 || calls.Load() != 1 {
		t.Fatalf("err %v after %d calls: an error envelope is final", err, calls.Load())
	}
}

// fakeRAGFlow holds one dataset per wanted name and lets a test decide how
// parsing ends; it records the calls. The loader sends pages at once, so
// one request at a time holds its state (mu).
type fakeRAGFlow struct {
	mu        sync.Mutex
	parseEnds string // run state the documents list reports after a parse
	calls     []string
	docs      map[string]map[string]any
}

func (f *fakeRAGFlow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	reply := func(data any) { json.NewEncoder(w).Encode(map[string]any{"code": 0, "data": data}) }
	switch {
	case r.URL.Path == "/api/v1/datasets" && r.Method == http.MethodGet:
		reply([]any{})
	case r.URL.Path == "/api/v1/datasets":
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		reply(map[string]any{"id": "ds-" + strings.ReplaceAll(body["name"].(string), " ", "-"), "name": body["name"]})
	case strings.HasSuffix(r.URL.Path, "/documents") && r.Method == http.MethodPost:
		id := "doc" + string(rune('a'+len(f.docs)))
		f.docs[id] = map[string]any{"id": id, "run": "UNSTART"}
		reply([]any{f.docs[id]})
	case strings.HasSuffix(r.URL.Path, "/documents") && r.Method == http.MethodGet:
		var docs []any
		for _, id := range r.URL.Query()["ids"] {
			docs = append(docs, f.docs[id])
		}
		reply(map[string]any{"total": len(docs), "docs": docs})
	case strings.HasSuffix(r.URL.Path, "/chunks"):
		for _, d := range f.docs {
			d["run"], d["progress_msg"] = f.parseEnds, "embedding model unavailable"
		}
		reply(nil)
	default:
		reply(map[string]any{})
	}
}

func TestRAGFlowParseFailureIsAPageFailure(t *testing.T) {
	fake := &fakeRAGFlow{parseEnds: "FAIL", docs: map[string]map[string]any{}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	m, err := ParseMapping([]byte("projects: [{id: kunora-ops, path: operations}]"), "test")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "docs", "operations"), 0o755)
	os.WriteFile(filepath.Join(dir, "docs", "operations", "a.md"), []byte("# A\n\ntext\n"), 0o600)
	pages, _, err := ReadTree(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	s := &RAGFlowSync{Client: &RAGFlowClient{URL: srv.URL, Key: "k", PollEvery: time.Millisecond}, Mapping: m}
	rep, _, err := s.Run(context.Background(), pages, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 0 || len(rep.Failures) != 1 || rep.Failures[0].Path != "operations/a.md (main)" ||
		!strings.Contains(rep.Failures[0].Err, "FAIL: embedding model unavailable") {
		t.Fatalf("report %+v: a page whose parse failed is not added", rep)
	}
	if !contains(fake.calls, "PATCH /api/v1/datasets/ds-kunora-ops-main-approved/documents/doca") {
		t.Fatalf("meta_fields never set: %v", fake.calls)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestDocumentNameIsFlatAndBounded(t *testing.T) {
	p := Page{ID: "0123456789abcdef01234567", Path: "publish/system/x/index.md"}
	if got := DocumentName(p); got != "publish__system__x__index.md" {
		t.Fatalf("name %q", got)
	}
	p.Path = strings.Repeat("segment/", 40) + "page.mdx"
	if got := DocumentName(p); len(got) > 255 || !strings.HasSuffix(got, "~0123456789abcdef.mdx") {
		t.Fatalf("long name %q (%d bytes)", got, len(got))
	}
	p.Path = strings.Repeat("é", 200) + ".md"
	if got := DocumentName(p); len(got) > 255 || !utf8.ValidString(got) {
		t.Fatalf("long non-ASCII name %q (%d bytes) must stay valid UTF-8", got, len(got))
	}
}
