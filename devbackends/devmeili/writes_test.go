package devmeili

import (
	"fmt"
	"net/http"
	"testing"
)

// taskOutcome follows a 202 to its task, as a client must.
func taskOutcome(t *testing.T, s *Server, code int, summary map[string]any) map[string]any {
	t.Helper()
	if code != http.StatusAccepted || summary["status"] != "enqueued" {
		t.Fatalf("write answered %d %v, want 202 enqueued", code, summary)
	}
	uid := int(summary["taskUid"].(float64))
	code, task := callJSON(t, s, http.MethodGet, fmt.Sprintf("/tasks/%d", uid), testMaster, "")
	if code != http.StatusOK {
		t.Fatalf("GET task %d: %d %v", uid, code, task)
	}
	return task
}

func taskErrorCode(task map[string]any) string {
	e, _ := task["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

func TestWritesCreateFillSearchAndDelete(t *testing.T) {
	s := newTestServer(t)
	code, sum := callJSON(t, s, http.MethodPost, "/indexes", testMaster, `{"uid":"pages2","primaryKey":"id"}`)
	if task := taskOutcome(t, s, code, sum); task["status"] != "succeeded" || task["type"] != "indexCreation" {
		t.Fatalf("create: %v", task)
	}
	code, sum = callJSON(t, s, http.MethodPost, "/indexes", testMaster, `{"uid":"pages2"}`)
	if task := taskOutcome(t, s, code, sum); task["status"] != "failed" || taskErrorCode(task) != "index_already_exists" {
		t.Fatalf("second create: %v", task)
	}
	doc := `[{"id":"p1","title":"Quokka care","content":"feed the quokka","project":"x","pathPrefixes":["a","a/b"]}]`
	code, sum = callJSON(t, s, http.MethodPost, "/indexes/pages2/documents", testMaster, doc)
	task := taskOutcome(t, s, code, sum)
	if details, _ := task["details"].(map[string]any); task["status"] != "succeeded" || details["indexedDocuments"] != 1.0 {
		t.Fatalf("add: %v", task)
	}
	code, res := callJSON(t, s, http.MethodPost, "/indexes/pages2/search", testMaster, `{"q":"quokka","filter":"pathPrefixes IN [\"a/b\"]"}`)
	if hits, _ := res["hits"].([]any); code != http.StatusOK || len(hits) != 1 {
		t.Fatalf("search after add: %d %v", code, res)
	}
	code, sum = callJSON(t, s, http.MethodPost, "/indexes/pages2/documents/delete-batch", testMaster, `["p1","nope"]`)
	task = taskOutcome(t, s, code, sum)
	if details, _ := task["details"].(map[string]any); details["deletedDocuments"] != 1.0 || details["providedIds"] != 2.0 {
		t.Fatalf("delete: %v", task)
	}
	if code, _ := callJSON(t, s, http.MethodGet, "/indexes/pages2/documents/p1", testMaster, ""); code != http.StatusNotFound {
		t.Fatalf("deleted document answers %d", code)
	}
}

func TestWritesFailLikeTheEngine(t *testing.T) {
	s := newTestServer(t)
	code, sum := callJSON(t, s, http.MethodPost, "/indexes/wiki_pages/documents", testMaster, `[{"id":"guide/install.md"}]`)
	task := taskOutcome(t, s, code, sum)
	if task["status"] != "failed" || taskErrorCode(task) != "invalid_document_id" {
		t.Fatalf("a path as id: %v", task)
	}
	if code, body := callJSON(t, s, http.MethodGet, "/tasks/999", testMaster, ""); code != http.StatusNotFound || body["code"] != "task_not_found" {
		t.Fatalf("unknown task: %d %v", code, body)
	}
	_, searchKey := s.SearchKey()
	if code, body := callJSON(t, s, http.MethodPost, "/indexes/wiki_pages/documents", searchKey, `[{"id":"a"}]`); code != http.StatusForbidden || body["code"] != "invalid_api_key" {
		t.Fatalf("search key writing: %d %v", code, body)
	}
	if code, body := callJSON(t, s, http.MethodPatch, "/indexes/wiki_pages/settings", testMaster, `{"rankingRulez":[]}`); code != http.StatusBadRequest || body["code"] != "bad_request" {
		t.Fatalf("unknown setting: %d %v", code, body)
	}
	code, sum = callJSON(t, s, http.MethodPost, "/indexes/missing/documents/delete-batch", testMaster, `["a"]`)
	if task := taskOutcome(t, s, code, sum); taskErrorCode(task) != "index_not_found" {
		t.Fatalf("delete in a missing index: %v", task)
	}
}
