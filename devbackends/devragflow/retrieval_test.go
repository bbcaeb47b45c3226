package devragflow

import (
	"sort"
	"strings"
	"testing"
)

const zeroDataset = "00000000000000000000000000000000"

func TestRetrievalErrorsInContractOrder(t *testing.T) {
	s := newTestServer(t)
	otherDoc := docIDByPath(t, s, dsGatewayMain, "publish/system/components/kunora-gateway/index.md")
	tests := []struct {
		name string
		body map[string]any
		want map[string]any
	}{
		{"no body fields", map[string]any{}, fixture(t, "error.retrieval_dataset_ids_required.json")},
		{"empty dataset list", map[string]any{"dataset_ids": []any{}, "question": "q"},
			fixture(t, "error.retrieval_dataset_ids_required.json")},
		{"dataset_ids not a list", map[string]any{"dataset_ids": "abc", "question": "q"},
			errorResult(102, "`dataset_ids` should be a list")},
		{"unknown dataset", map[string]any{"dataset_ids": []any{zeroDataset}, "question": "q"},
			fixture(t, "error.dataset_not_owned.json")},
		{"unknown dataset before missing question", map[string]any{"dataset_ids": []any{dsKgentMain, zeroDataset}},
			fixture(t, "error.dataset_not_owned.json")},
		{"question missing", map[string]any{"dataset_ids": []any{dsKgentMain}},
			errorResult(102, "`question` is required.")},
		{"page_size above 100", map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "q", "page_size": 101},
			jsonResult(100, "ValueError('page_size must be less than or equal to 100')", nil)},
		{"document_ids not a list", map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "q", "document_ids": "x"},
			errorResult(102, "`documents` should be a list")},
		{"unknown document", map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "q", "document_ids": []any{"not-owned"}},
			fixture(t, "error.retrieval_document_not_owned.json")},
		{"document of an unrequested dataset", map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "q", "document_ids": []any{otherDoc}},
			errorResult(102, "The datasets don't own the document "+otherDoc)},
		{"bad threshold", map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "q", "similarity_threshold": "abc"},
			jsonResult(100, `ValueError("could not convert string to float: 'abc'")`, nil)},
		{"top_k zero", map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "q", "top_k": 0},
			errorResult(102, "`top_k` must be greater than 0")},
		{"highlight not boolean", map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "q", "highlight": "yes"},
			errorResult(102, "`highlight` should be a boolean")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := post(t, s, "/api/v1/retrieval", tc.body)
			if rec.Code != 200 {
				t.Fatalf("status = %d, want 200", rec.Code)
			}
			want := map[string]any{}
			for k, v := range tc.want {
				want[k] = v
			}
			sameJSON(t, decode(t, rec), want)
		})
	}
}

func TestRetrievalEmptyQuestionReturnsEmptyDictAggs(t *testing.T) {
	s := newTestServer(t)
	out := decode(t, post(t, s, "/api/v1/retrieval", map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "   "}))
	sameJSON(t, out, map[string]any{"code": 0, "data": map[string]any{"total": 0, "chunks": []any{}, "doc_aggs": map[string]any{}}})
}

func TestRetrievalSuccessShape(t *testing.T) {
	s := newTestServer(t)
	out := decode(t, post(t, s, "/api/v1/retrieval", map[string]any{
		"dataset_ids": []any{dsKgentMain}, "question": "How do I deploy kunora-kgent with helm?", "highlight": true}))
	want := fixture(t, "retrieval.response.json")
	if _, has := out["message"]; has {
		t.Errorf("success body has a message key (get_result has none): %v", out)
	}
	data := out["data"].(map[string]any)
	wantData := want["data"].(map[string]any)
	if got, exp := sorted(keysOf(data)), sorted(keysOf(wantData)); strings.Join(got, ",") != strings.Join(exp, ",") {
		t.Errorf("data keys = %v, want %v", got, exp)
	}
	chunks := chunksOf(data)
	if len(chunks) == 0 {
		t.Fatal("no chunks")
	}
	contractKeys := []string{"id", "content", "content_ltks", "document_id", "document_keyword", "dataset_id",
		"important_keywords", "tag_kwd", "image_id", "positions", "similarity", "vector_similarity",
		"term_similarity", "doc_type_kwd", "mom_id", "row_id", "highlight"}
	for _, k := range append(contractKeys, keysOf(wantData["chunks"].([]any)[0].(map[string]any))...) {
		if _, has := chunks[0][k]; !has {
			t.Errorf("chunk lacks key %q", k)
		}
	}
	if !strings.Contains(chunks[0]["content"].(string), "helm chart") {
		t.Errorf("best chunk = %q, want the Deployment section", chunks[0]["content"])
	}
	if !strings.Contains(chunks[0]["highlight"].(string), "<em>helm</em>") {
		t.Errorf("highlight = %q, want <em> marks", chunks[0]["highlight"])
	}
	if chunks[0]["document_keyword"] != "index.md" || chunks[0]["dataset_id"] != dsKgentMain {
		t.Errorf("chunk names %v in %v", chunks[0]["document_keyword"], chunks[0]["dataset_id"])
	}
	checkScores(t, chunks)
	if int(data["total"].(float64)) != len(chunks) {
		t.Errorf("total = %v, want %d", data["total"], len(chunks))
	}
}

func checkScores(t *testing.T, chunks []map[string]any) {
	t.Helper()
	prev := 2.0
	for _, c := range chunks {
		for _, k := range []string{"similarity", "vector_similarity", "term_similarity"} {
			if v := c[k].(float64); v < 0 || v > 1 {
				t.Errorf("%s = %v, want within 0..1", k, v)
			}
		}
		if sim := c["similarity"].(float64); sim > prev {
			t.Errorf("chunks not sorted by similarity: %v after %v", sim, prev)
		} else {
			prev = sim
		}
	}
}

func TestRetrievalStaysInRequestedDatasets(t *testing.T) {
	s := newTestServer(t)
	data := retrieve(t, s, map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "kunora gateway rate limiting"})
	for _, c := range chunksOf(data) {
		if c["dataset_id"] != dsKgentMain {
			t.Errorf("chunk from dataset %v leaked", c["dataset_id"])
		}
	}
	data = retrieve(t, s, map[string]any{"dataset_ids": []any{dsGatewayMain}, "question": "kunora gateway rate limiting"})
	if len(chunksOf(data)) == 0 {
		t.Error("gateway dataset returned nothing for a gateway question")
	}
}

func TestRetrievalRepeatedDatasetIDs(t *testing.T) {
	s := newTestServer(t)
	once := retrieve(t, s, map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "kunora", "similarity_threshold": 0})
	twice := retrieve(t, s, map[string]any{"dataset_ids": []any{dsKgentMain, dsKgentMain}, "question": "kunora", "similarity_threshold": 0})
	if once["total"] == 0.0 || once["total"] != twice["total"] {
		t.Errorf("total %v with a repeated id, want %v", twice["total"], once["total"])
	}
}

func TestRetrievalDocumentFilter(t *testing.T) {
	s := newTestServer(t)
	tools := docIDByPath(t, s, dsKgentMain, "publish/system/components/kunora-kgent/tools.md")
	data := retrieve(t, s, map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "kunora-kgent",
		"document_ids": []any{tools}})
	chunks := chunksOf(data)
	if len(chunks) == 0 {
		t.Fatal("no chunks")
	}
	for _, c := range chunks {
		if c["document_id"] != tools {
			t.Errorf("chunk of document %v outside document_ids", c["document_id"])
		}
	}
}

func TestRetrievalPaging(t *testing.T) {
	s := newTestServer(t)
	base := map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "kunora", "similarity_threshold": 0}
	all := chunksOf(retrieve(t, s, base))
	if len(all) < 3 {
		t.Fatalf("want at least 3 hits to page through, got %d", len(all))
	}
	for page := 1; page <= 3; page++ {
		body := map[string]any{"page": page, "page_size": 1}
		for k, v := range base {
			body[k] = v
		}
		data := retrieve(t, s, body)
		got := chunksOf(data)
		if len(got) != 1 || got[0]["id"] != all[page-1]["id"] {
			t.Errorf("page %d = %v, want chunk %v", page, got, all[page-1]["id"])
		}
		if int(data["total"].(float64)) != len(all) {
			t.Errorf("page %d total = %v, want %d", page, data["total"], len(all))
		}
	}
	body := map[string]any{"page_size": "junk", "page": -3}
	for k, v := range base {
		body[k] = v
	}
	if got := chunksOf(retrieve(t, s, body)); len(got) != len(all) {
		t.Errorf("invalid paging should fall back to page 1 size 30, got %d chunks", len(got))
	}
}

func TestRetrievalThreshold(t *testing.T) {
	s := newTestServer(t)
	data := retrieve(t, s, map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "kunora helm memory",
		"similarity_threshold": 0.99})
	if data["total"] != 0.0 || len(chunksOf(data)) != 0 {
		t.Errorf("threshold 0.99 kept %v", data)
	}
	if aggs, ok := data["doc_aggs"].([]any); !ok || len(aggs) != 0 {
		t.Errorf("doc_aggs = %#v, want an empty list", data["doc_aggs"])
	}
}

func TestRetrievalReferenceMetadata(t *testing.T) {
	s := newTestServer(t)
	base := func(extra map[string]any) map[string]any {
		b := map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "deploy kunora-kgent helm"}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	tests := []struct {
		name  string
		extra map[string]any
		want  []string // nil: no document_metadata key
	}{
		{"off by default", nil, nil},
		{"include with fields", map[string]any{"reference_metadata": map[string]any{"include": true, "fields": []any{"path", "url"}}},
			[]string{"path", "url"}},
		{"include all fields", map[string]any{"reference_metadata": map[string]any{"include": true}},
			[]string{"path", "project", "status", "title", "url", "version"}},
		{"flat aliases", map[string]any{"include_metadata": true, "metadata_fields": []any{"title"}}, []string{"title"}},
		{"include false", map[string]any{"reference_metadata": map[string]any{"include": false, "fields": []any{"path"}}}, nil},
		{"empty field list", map[string]any{"reference_metadata": map[string]any{"include": true, "fields": []any{}}}, nil},
		{"unknown field only", map[string]any{"reference_metadata": map[string]any{"include": true, "fields": []any{"author"}}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			chunks := chunksOf(retrieve(t, s, base(tc.extra)))
			if len(chunks) == 0 {
				t.Fatal("no chunks")
			}
			meta, has := chunks[0]["document_metadata"].(map[string]any)
			if tc.want == nil {
				if has {
					t.Errorf("document_metadata = %v, want none", meta)
				}
				return
			}
			if got := sorted(keysOf(meta)); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("document_metadata keys = %v, want %v", got, tc.want)
			}
			if v, ok := meta["path"]; ok && v != "publish/system/components/kunora-kgent/index.md" {
				t.Errorf("path = %v", v)
			}
		})
	}
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}
