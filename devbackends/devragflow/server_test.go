package devragflow

import (
	"net/http"
	"strings"
	"testing"
)

func TestNewRequiresKey(t *testing.T) {
	if _, err := New(Config{Corpus: testCorpus(t)}); err == nil {
		t.Error("New without an API key succeeded")
	}
}

func TestMalformedBodies(t *testing.T) {
	s := newTestServer(t)
	tests := []struct {
		name, body, want string
	}{
		{"broken JSON", `{"dataset_ids": [`, "<BadRequest '400: Bad Request'>"},
		{"empty body", ``, "<BadRequest '400: Bad Request'>"},
		{"trailing garbage", `{} x`, "<BadRequest '400: Bad Request'>"},
		{"array body", `[1]`, `AttributeError("'list' object has no attribute 'get'")`},
		{"too large", `{"question": "` + strings.Repeat("a", maxBodyBytes) + `"}`,
			"<RequestEntityTooLarge '413: Request Entity Too Large'>"},
	}
	for _, tc := range tests {
		for _, path := range []string{"/api/v1/retrieval", "/api/v1/chat/completions"} {
			t.Run(tc.name+" "+path, func(t *testing.T) {
				rec := post(t, s, path, tc.body)
				if rec.Code != http.StatusOK {
					t.Fatalf("status = %d, want 200", rec.Code)
				}
				sameJSON(t, decode(t, rec), map[string]any{"code": 100, "data": nil, "message": tc.want})
			})
		}
	}
}

func TestOptionsListsMethods(t *testing.T) {
	s := newTestServer(t)
	rec := call(t, s, http.MethodOptions, "/api/v1/datasets", nil, "")
	if rec.Code != http.StatusOK || rec.Header().Get("Allow") != "GET, HEAD, OPTIONS, POST" { // POST: create (writes_datasets.go)
		t.Errorf("OPTIONS = %d Allow %q", rec.Code, rec.Header().Get("Allow"))
	}
}

func TestDatasetsList(t *testing.T) {
	s := newTestServer(t)
	auth := "Bearer " + testKey
	out := decode(t, call(t, s, http.MethodGet, "/api/v1/datasets", nil, auth))
	if _, has := out["message"]; has || out["total_datasets"] != 5.0 {
		t.Fatalf("body = %v, want get_result with total_datasets 5", out)
	}
	byID := map[string]map[string]any{}
	for _, d := range out["data"].([]any) {
		ds := d.(map[string]any)
		byID[ds["id"].(string)] = ds
	}
	if ds := byID[dsKgentMain]; ds["document_count"] != 3.0 || ds["name"] != "kgent main approved" {
		t.Errorf("kgent dataset = %v", ds)
	}
	if ds := byID[dsOpsEmpty]; ds["document_count"] != 0.0 || ds["chunk_count"] != 0.0 {
		t.Errorf("empty dataset = %v", ds)
	}
	if ds := byID[dsKgentMain]; !strings.Contains(ds["embedding_model"].(string), "wikigate-dev") {
		t.Errorf("embedding model %v does not say it is the stand-in", ds["embedding_model"])
	}

	out = decode(t, call(t, s, http.MethodGet, "/api/v1/datasets?id="+dsGatewayMain, nil, auth))
	if data := out["data"].([]any); len(data) != 1 || data[0].(map[string]any)["id"] != dsGatewayMain {
		t.Errorf("id filter = %v", out)
	}
	out = decode(t, call(t, s, http.MethodGet, "/api/v1/datasets?id="+zeroDataset, nil, auth))
	if out["code"] != 102.0 || !strings.Contains(out["message"].(string), "lacks permission for dataset '"+zeroDataset+"'") {
		t.Errorf("unknown id = %v", out)
	}
	out = decode(t, call(t, s, http.MethodGet, "/api/v1/datasets?page=2&page_size=2", nil, auth))
	if len(out["data"].([]any)) != 2 || out["total_datasets"] != 5.0 {
		t.Errorf("paging = %v", out)
	}
}

func TestDocumentsListErrors(t *testing.T) {
	s := newTestServer(t)
	auth := "Bearer " + testKey
	sameJSON(t, decode(t, call(t, s, http.MethodGet, "/api/v1/datasets/"+zeroDataset+"/documents", nil, auth)),
		errorResult(102, "You don't own the dataset "+zeroDataset+". "))
	sameJSON(t, decode(t, call(t, s, http.MethodGet, "/api/v1/datasets/"+dsKgentMain+"/documents?id=nope", nil, auth)),
		errorResult(102, "you don't own the document nope"))
	sameJSON(t, decode(t, call(t, s, http.MethodGet, "/api/v1/datasets/"+dsKgentMain+"/documents?page_size=500", nil, auth)),
		jsonResult(100, "ValueError('page_size must be less than or equal to 100')", nil))
}

// Plain JSON responses go through jsonify: non-ASCII is escaped.
func TestJSONEscapesNonASCII(t *testing.T) {
	s := newTestServer(t)
	rec := post(t, s, "/api/v1/retrieval", map[string]any{"dataset_ids": []any{dsGatewayMain}, "question": "限流"})
	body := rec.Body.String()
	if strings.Contains(body, "限") || !strings.Contains(body, `\u9650\u6d41`) {
		t.Errorf("body should escape non-ASCII: %s", body)
	}
	if data := decode(t, rec)["data"].(map[string]any); data["total"] == 0.0 {
		t.Error("a Chinese question found nothing")
	}
}

func TestPyFloatRepr(t *testing.T) {
	for f, want := range map[float64]string{1: "1.0", 0: "0.0", 0.5: "0.5", 1781250171.5266216: "1781250171.5266216",
		1e16: "1e+16", 0.00001: "1e-05", 0.0001: "0.0001"} {
		if got := pyFloatRepr(f); got != want {
			t.Errorf("pyFloatRepr(%v) = %q, want %q", f, got, want)
		}
	}
}
