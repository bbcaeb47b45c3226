package ragflow

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var kgentParams = RetrieveParams{
	Question:   "How is agent memory configured?",
	DatasetIDs: []string{"d092f80af64f8e5e119cee1082c471b4", "32a7ab278e7c1b4897cce0b41a3c415f"},
	Condition:  PathCondition([]string{"publish/system/components/kunora-kgent"}),
}

func TestRetrieveSendsExactlyTheAllowList(t *testing.T) {
	f := serveReply(t, http.StatusOK, "application/json", fixture(t, "retrieval.response.json"))
	c := newTestClient(t, f.URL+"/")
	p := kgentParams
	p.TopK = 64
	if _, err := c.Retrieve(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("requests = %d, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Path != "/api/v1/retrieval" || r.Auth != "Bearer "+testKey {
		t.Errorf("request = %s %s auth %q", r.Method, r.Path, r.Auth)
	}
	want := map[string]any{
		"question":    p.Question,
		"dataset_ids": []any{"d092f80af64f8e5e119cee1082c471b4", "32a7ab278e7c1b4897cce0b41a3c415f"},
		"metadata_condition": map[string]any{"logic": "or", "conditions": []any{
			map[string]any{"name": "path", "comparison_operator": "=", "value": "publish/system/components/kunora-kgent"},
			map[string]any{"name": "path", "comparison_operator": "start with", "value": "publish/system/components/kunora-kgent/"},
		}},
		"page":                 1.0,
		"page_size":            12.0,
		"similarity_threshold": 0.2,
		"top_k":                64.0,
		"highlight":            false,
		"reference_metadata": map[string]any{"include": true,
			"fields": []any{"path", "url", "title", "project", "version", "status"}},
	}
	if !reflect.DeepEqual(r.Body, want) {
		got, _ := json.MarshalIndent(r.Body, "", " ")
		t.Errorf("body sent:\n%s", got)
	}
}

func TestRetrieveOmitsOptionalFields(t *testing.T) {
	f := serveReply(t, http.StatusOK, "application/json", fixture(t, "retrieval.response.json"))
	c := newTestClient(t, f.URL)
	if _, err := c.Retrieve(t.Context(), RetrieveParams{Question: "q", DatasetIDs: []string{"ds"}, PageSize: 5, SimilarityThreshold: 0.4}); err != nil {
		t.Fatal(err)
	}
	body := f.requests()[0].Body
	got := keys(body)
	slices.Sort(got)
	want := []string{"dataset_ids", "highlight", "page", "page_size", "question", "reference_metadata", "similarity_threshold"}
	if !slices.Equal(got, want) {
		t.Errorf("keys = %v, want %v", got, want)
	}
	if body["page_size"] != 5.0 || body["similarity_threshold"] != 0.4 {
		t.Errorf("page_size %v, threshold %v", body["page_size"], body["similarity_threshold"])
	}
}

// TestRetrieveSendsRerankAndKeywordOnlyWhenSet: a configured rerank model
// and keyword expansion reach RAGFlow as rerank_id and keyword; unset,
// neither key is in the body, so RAGFlow's defaults (no rerank, no
// expansion) apply.
func TestRetrieveSendsRerankAndKeywordOnlyWhenSet(t *testing.T) {
	f := serveReply(t, http.StatusOK, "application/json", fixture(t, "retrieval.response.json"))
	c := newTestClient(t, f.URL)
	unset := kgentParams
	set := kgentParams
	set.RerankID, set.Keyword = "BAAI/bge-reranker-v2-m3@Xinference", true
	for _, p := range []RetrieveParams{unset, set} {
		if _, err := c.Retrieve(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	reqs := f.requests()
	if _, has := reqs[0].Body["rerank_id"]; has {
		t.Errorf("unset: body carries rerank_id %v", reqs[0].Body["rerank_id"])
	}
	if _, has := reqs[0].Body["keyword"]; has {
		t.Errorf("unset: body carries keyword %v", reqs[0].Body["keyword"])
	}
	if got := reqs[1].Body["rerank_id"]; got != set.RerankID {
		t.Errorf("set: rerank_id = %v, want %q", got, set.RerankID)
	}
	if got := reqs[1].Body["keyword"]; got != true {
		t.Errorf("set: keyword = %v, want true", got)
	}
}

func TestRetrieveParsesChunks(t *testing.T) {
	cases := map[string]struct {
		file    string
		dataset string
	}{
		"G2 dataset_id":   {"retrieval.response.json", "c7ee74067a2c11efb21c0242ac120006"},
		"v0.24 kb_id":     {"v0.24.0/retrieval.response.json", "c7ee74067a2c11efb21c0242ac120006"},
		"with metadata":   {"", "c7ee74067a2c11efb21c0242ac120006"},
		"null similarity": {"", "c7ee74067a2c11efb21c0242ac120006"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			body := fixture(t, "retrieval.response.json")
			if tc.file != "" {
				body = fixture(t, tc.file)
			} else {
				body = withFirstChunk(t, body, name)
			}
			c := newTestClient(t, serveReply(t, 200, "application/json", body).URL)
			got, err := c.Retrieve(t.Context(), kgentParams)
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != 1 || len(got.Chunks) != 1 {
				t.Fatalf("total %d, chunks %d", got.Total, len(got.Chunks))
			}
			ch := got.Chunks[0]
			if ch.ID != "d78435d142bd5cf6704da62c778795c5" || ch.Content != "ragflow content" ||
				ch.DocumentID != "5c5999ec7be811ef9cab0242ac120005" || ch.DocumentName != "1.txt" || ch.DatasetID != tc.dataset {
				t.Errorf("chunk = %+v", ch)
			}
			switch name {
			case "with metadata":
				if ch.MetaString("path") != "publish/x.md" || ch.MetaString("project") != "" {
					t.Errorf("metadata = %v", ch.Metadata)
				}
			case "null similarity":
				if ch.Similarity != 0 || ch.TermSimilarity != 1 {
					t.Errorf("scores = %v %v", ch.Similarity, ch.TermSimilarity)
				}
			default:
				if ch.Similarity != 0.9669436601210759 || ch.VectorSimilarity != 0.8898122004035864 || ch.Metadata != nil {
					t.Errorf("chunk = %+v", ch)
				}
			}
		})
	}
}

// withFirstChunk edits the fixture's first chunk for the named case.
func withFirstChunk(t *testing.T, body []byte, name string) []byte {
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	ch := doc["data"].(map[string]any)["chunks"].([]any)[0].(map[string]any)
	switch name {
	case "with metadata":
		ch["document_metadata"] = map[string]any{"path": "publish/x.md", "project": 7}
	case "null similarity":
		ch["similarity"] = nil
	}
	out, _ := json.Marshal(doc)
	return out
}

func TestRetrieveRefusesEmptyDatasetsWithoutCalling(t *testing.T) {
	f := serveReply(t, 200, "application/json", fixture(t, "retrieval.response.json"))
	c := newTestClient(t, f.URL)
	for _, ids := range [][]string{nil, {}, {""}, {"ds", ""}} {
		_, err := c.Retrieve(t.Context(), RetrieveParams{Question: "q", DatasetIDs: ids})
		if !errors.Is(err, ErrNoDatasets) {
			t.Errorf("datasets %q: err = %v, want ErrNoDatasets", ids, err)
		}
	}
	for _, p := range []RetrieveParams{
		{Question: "q", DatasetIDs: []string{"ds"}, PageSize: 101},
		{Question: "q", DatasetIDs: []string{"ds"}, Condition: &MetadataCondition{Logic: "or"}},
	} {
		if _, err := c.Retrieve(t.Context(), p); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests reached RAGFlow", n)
	}
}

func TestPathCondition(t *testing.T) {
	if PathCondition(nil) != nil {
		t.Error("no paths must give no condition")
	}
	got := PathCondition([]string{"a/b", "c"})
	want := &MetadataCondition{Logic: "or", Conditions: []Condition{
		{"path", "=", "a/b"}, {"path", "start with", "a/b/"},
		{"path", "=", "c"}, {"path", "start with", "c/"},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PathCondition = %+v", got)
	}
	b, _ := json.Marshal(got.Conditions[1])
	if string(b) != `{"name":"path","comparison_operator":"start with","value":"a/b/"}` {
		t.Errorf("wire form = %s", b)
	}
}

func TestRetrieveDoesNotLeakTheKey(t *testing.T) {
	body := []byte(`{"code": 102, "message": "bad header Bearer ` + testKey + `"}`)
	c := newTestClient(t, serveReply(t, 200, "application/json", body).URL)
	_, err := c.Retrieve(t.Context(), kgentParams)
	e := asError(t, err, Rejected)
	if strings.Contains(err.Error(), testKey) || !strings.Contains(e.Detail, "[redacted]") {
		t.Errorf("error = %v", err)
	}
}
