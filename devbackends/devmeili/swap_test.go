package devmeili

import (
	"net/http"
	"testing"
)

func TestSwapIndexesExchangesContentsAndDeleteRemoves(t *testing.T) {
	s := newTestServer(t)
	code, sum := callJSON(t, s, http.MethodPost, "/indexes/wiki_new/documents", testMaster,
		`[{"id":"n1","title":"Quokka care","content":"feed the quokka","project":"x"}]`)
	taskOutcome(t, s, code, sum)
	code, sum = callJSON(t, s, http.MethodPost, "/swap-indexes", testMaster, `[{"indexes":["wiki_pages","wiki_new"]}]`)
	task := taskOutcome(t, s, code, sum)
	if task["status"] != "succeeded" || task["type"] != "indexSwap" || task["indexUid"] != nil {
		t.Fatalf("swap: %v (a global task has indexUid null)", task)
	}
	if code, res := callJSON(t, s, http.MethodPost, "/indexes/wiki_pages/search", testMaster, `{"q":"quokka"}`); code != 200 || len(res["hits"].([]any)) != 1 {
		t.Fatalf("wiki_pages after the swap: %d %v", code, res)
	}
	code, sum = callJSON(t, s, http.MethodDelete, "/indexes/wiki_new", testMaster, "")
	if task := taskOutcome(t, s, code, sum); task["status"] != "succeeded" || task["details"].(map[string]any)["deletedDocuments"] == 0.0 {
		t.Fatalf("delete: %v (wiki_new held the sample wiki after the swap)", task)
	}
	if code, _ := callJSON(t, s, http.MethodGet, "/indexes/wiki_new", testMaster, ""); code != http.StatusNotFound {
		t.Fatalf("deleted index answers %d", code)
	}
}

func TestSwapIndexesFailsLikeTheEngine(t *testing.T) {
	s := newTestServer(t)
	code, body := callJSON(t, s, http.MethodPost, "/swap-indexes", testMaster, `[{"indexes":["doggo"]}]`)
	if code != http.StatusBadRequest || body["code"] != "invalid_swap_indexes" ||
		body["message"] != "Two indexes must be given for each swap. The list `[\"doggo\"]` contains 1 indexes." {
		t.Fatalf("one index: %d %v", code, body)
	}
	code, body = callJSON(t, s, http.MethodPost, "/swap-indexes", testMaster, `[{"indexes":["a","b"]},{"indexes":["b","c"]}]`)
	if code != http.StatusBadRequest || body["code"] != "invalid_swap_duplicate_index_found" {
		t.Fatalf("an index twice: %d %v", code, body)
	}
	code, sum := callJSON(t, s, http.MethodPost, "/swap-indexes", testMaster, `[{"indexes":["cattos","doggos"]}]`)
	if task := taskOutcome(t, s, code, sum); taskErrorCode(task) != "index_not_found" ||
		task["error"].(map[string]any)["message"] != "Indexes `cattos`, `doggos` not found." {
		t.Fatalf("missing indexes: %v", task)
	}
}
