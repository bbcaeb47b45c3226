package devragflow

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// upload sends one multipart part named field (RAGFlow's is "file").
func upload(t *testing.T, s http.Handler, dataset, field, name, content string) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	part, _ := mw.CreateFormFile(field, name)
	part.Write([]byte(content))
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, "/api/v1/datasets/"+dataset+"/documents", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+testKey)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return decode(t, rec)
}

// authed sends an authorized call, a body as application/json.
func authed(t *testing.T, s http.Handler, method, path string, body any) map[string]any {
	t.Helper()
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+testKey)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return decode(t, rec)
}

func TestCreateDatasetIsStrictJSON(t *testing.T) {
	s := newTestServer(t)
	req := httptest.NewRequest(http.MethodPost, "/api/v1/datasets", strings.NewReader(`<name/>`))
	req.Header.Set("Content-Type", "text/xml")
	req.Header.Set("Authorization", "Bearer "+testKey)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	sameJSON(t, decode(t, rec), fixture(t, "error.dataset_create.bad_content_type.json"))
	for body, want := range map[string]string{
		`{"name":`:    "error.dataset_create.malformed_json.json",
		`{"name":""}`: "error.dataset_create.name_empty.json",
	} {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/datasets", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+testKey)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		sameJSON(t, decode(t, rec), fixture(t, want))
	}
}

// createDataset creates name and returns the new dataset.
func createDataset(t *testing.T, s http.Handler, name string) map[string]any {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/api/v1/datasets", strings.NewReader(`{"name":"`+name+`","chunk_method":"naive"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+testKey)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	out := decode(t, rec)
	if out["code"] != 0.0 {
		t.Fatalf("create %q: %v", name, out)
	}
	return out["data"].(map[string]any)
}

func TestDuplicateDatasetNamesAreRenamedNotRefused(t *testing.T) {
	s := newTestServer(t)
	first := createDataset(t, s, "wiki pages")
	second := createDataset(t, s, "WIKI PAGES")
	if first["name"] != "wiki pages" || second["name"] != "WIKI PAGES(1)" || first["id"] == second["id"] {
		t.Fatalf("created %v then %v", first["name"], second["name"])
	}
	listed := authed(t, s, http.MethodGet, "/api/v1/datasets?name=Wiki+Pages", nil)
	if listed["total_datasets"] != 1.0 {
		t.Fatalf("list by name (case-insensitive): %v", listed)
	}
	missing := authed(t, s, http.MethodGet, "/api/v1/datasets?name=docs-wiki", nil)
	if missing["code"] != 102.0 || !strings.HasSuffix(missing["message"].(string), "lacks permission for dataset 'docs-wiki'") {
		t.Fatalf("an unknown name is an error, not an empty list: %v", missing)
	}
}

func TestUploadedDocumentIsRetrievableOnlyAfterParseWithItsMetadata(t *testing.T) {
	s := newTestServer(t)
	ds := createDataset(t, s, "ops main approved")["id"].(string)
	up := upload(t, s, ds, "file", "publish__ops__pager.md", "# Pager\n\nThe quokka rota pages the on-call engineer.\n")
	doc := up["data"].([]any)[0].(map[string]any)
	if up["code"] != 0.0 || doc["run"] != "UNSTART" || doc["name"] != "publish__ops__pager.md" {
		t.Fatalf("upload: %v", up)
	}
	id := doc["id"].(string)
	base := "/api/v1/datasets/" + ds + "/documents/"
	patched := authed(t, s, http.MethodPatch, base+id, map[string]any{"meta_fields": map[string]any{
		"path": "publish/ops/pager.md", "title": "Pager", "tags": []any{"a,b", "b"}}})
	meta := patched["data"].(map[string]any)["meta_fields"].(map[string]any)
	if patched["code"] != 0.0 || meta["path"] != "publish/ops/pager.md" || len(meta["tags"].([]any)) != 2 {
		t.Fatalf("patch: %v", patched)
	}
	ask := map[string]any{"question": "quokka rota", "dataset_ids": []any{ds},
		"reference_metadata": map[string]any{"include": true, "fields": []any{"path", "title"}}}
	if got := chunksOf(retrieve(t, s, ask)); len(got) != 0 {
		t.Fatalf("an unparsed document answered: %v", got)
	}
	sameJSON(t, authed(t, s, http.MethodPost, "/api/v1/datasets/"+ds+"/chunks", map[string]any{"document_ids": []any{id}}),
		fixture(t, "documents.parse.chunks_route.response.json"))
	listed := authed(t, s, http.MethodGet, "/api/v1/datasets/"+ds+"/documents?ids="+id, nil)
	if d := listed["data"].(map[string]any)["docs"].([]any)[0].(map[string]any); d["run"] != "DONE" || d["chunk_count"] != 1.0 {
		t.Fatalf("after parse: %v", d)
	}
	got := chunksOf(retrieve(t, s, ask))
	if len(got) != 1 || got[0]["document_metadata"].(map[string]any)["path"] != "publish/ops/pager.md" {
		t.Fatalf("retrieval after parse: %v", got)
	}
	deleted := authed(t, s, http.MethodDelete, "/api/v1/datasets/"+ds+"/documents", map[string]any{"ids": []any{id}})
	if deleted["code"] != 0.0 || deleted["data"].(map[string]any)["deleted"] != 1.0 {
		t.Fatalf("delete: %v", deleted)
	}
	if got := chunksOf(retrieve(t, s, ask)); len(got) != 0 {
		t.Fatalf("a deleted document answered: %v", got)
	}
}

func TestWriteErrorsMatchRAGFlow(t *testing.T) {
	s := newTestServer(t)
	ds := createDataset(t, s, "errors")["id"].(string)
	sameJSON(t, upload(t, s, ds, "files", "a.md", "x"), fixture(t, "error.documents_upload.no_file_part.json"))
	sameJSON(t, upload(t, s, ds, "file", "ragflow_test.exe", "x"), fixture(t, "error.documents_upload.unsupported_type.json"))
	id := upload(t, s, ds, "file", "a.md", "# A\n")["data"].([]any)[0].(map[string]any)["id"].(string)
	for meta, want := range map[string]any{
		"error.document_update.meta_fields_nested_object.json":   map[string]any{"obj": map[string]any{"x": 1}},
		"error.document_update.meta_fields_list_of_objects.json": map[string]any{"tags": []any{map[string]any{"x": 1}}},
		"error.document_update.meta_fields_not_object.json":      []any{},
	} {
		got := authed(t, s, http.MethodPatch, "/api/v1/datasets/"+ds+"/documents/"+id, map[string]any{"meta_fields": want})
		sameJSON(t, got, fixture(t, meta))
	}
	sameJSON(t, authed(t, s, http.MethodPost, "/api/v1/datasets/"+ds+"/chunks", map[string]any{"document_ids": []any{"invalid_id"}}),
		fixture(t, "error.documents_parse.not_found.json"))
	want := fixture(t, "error.documents_delete.nothing_selected.derived.json")
	want["message"] = strings.ReplaceAll(want["message"].(string), "<dataset_id>", ds)
	sameJSON(t, authed(t, s, http.MethodDelete, "/api/v1/datasets/"+ds+"/documents", map[string]any{}), want)
	gone := authed(t, s, http.MethodDelete, "/api/v1/datasets/"+ds+"/documents", map[string]any{"ids": []any{id, "nope"}})
	if gone["code"] != 102.0 || !strings.Contains(gone["message"].(string), "Document not found: nope") {
		t.Fatalf("delete with an unknown id: %v", gone)
	}
	if listed := authed(t, s, http.MethodGet, "/api/v1/datasets/"+ds+"/documents", nil); listed["data"].(map[string]any)["total"] != 1.0 {
		t.Fatalf("one unknown id must delete nothing: %v", listed)
	}
}

// TestWritesAndRetrievalsRunConcurrently is for the race detector: ingest
// writes change the model while retrievals read it.
func TestWritesAndRetrievalsRunConcurrently(t *testing.T) {
	s := newTestServer(t)
	ds := createDataset(t, s, "concurrent")["id"].(string)
	done := make(chan struct{})
	go func() {
		defer close(done)
		body := `{"question":"kunora quokka","dataset_ids":["` + ds + `","` + dsKgentMain + `"]}`
		for i := 0; i < 20; i++ {
			req := httptest.NewRequest(http.MethodPost, "/api/v1/retrieval", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+testKey)
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"code":0`) {
				t.Errorf("retrieval during writes: %d %s", rec.Code, rec.Body)
			}
		}
	}()
	for i := 0; i < 20; i++ {
		up := upload(t, s, ds, "file", "p.md", "# P\n\nthe quokka rota\n")
		id := up["data"].([]any)[0].(map[string]any)["id"].(string)
		authed(t, s, http.MethodPost, "/api/v1/datasets/"+ds+"/chunks", map[string]any{"document_ids": []any{id}})
		authed(t, s, http.MethodDelete, "/api/v1/datasets/"+ds+"/documents", map[string]any{"ids": []any{id}})
	}
	<-done
}
