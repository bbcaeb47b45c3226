package caddymodule

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TestCaddyfileRetrieval: the ragflow block's retrieval { ... } reaches the
// answer engine; without it an answer makes one retrieval with neither
// rerank_id nor keyword, and out-of-range values are refused at load.
func TestCaddyfileRetrieval(t *testing.T) {
	h := new(Handler)
	in := "wikigate {\n ragflow {\n retrieval {\n queries 3\n rerank_id BAAI/bge-reranker-v2-m3@Xinference\n keyword on\n min_coverage 0.5\n }\n }\n}"
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(in)); err != nil {
		t.Fatal(err)
	}
	a := h.RAGFlow.answerConfig()
	if a.Queries != 3 || a.RerankID != "BAAI/bge-reranker-v2-m3@Xinference" || !a.Keyword || a.MinCoverage != 0.5 {
		t.Errorf("answer config %+v", a)
	}

	h = new(Handler)
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("wikigate {\n ragflow {\n page_size 4\n }\n}")); err != nil {
		t.Fatal(err)
	}
	if a := h.RAGFlow.answerConfig(); a.Queries != 0 || a.RerankID != "" || a.Keyword || a.MinCoverage != 0 {
		t.Errorf("unset: answer config %+v, want the defaults", a)
	}

	for _, bad := range []string{"queries 4", "queries 0", "keyword maybe", "min_coverage 2", "rerank_id", "top_n 3"} {
		in := "wikigate {\n ragflow {\n retrieval {\n " + bad + "\n }\n }\n}"
		err := new(Handler).UnmarshalCaddyfile(caddyfile.NewTestDispenser(in))
		if err == nil || !strings.Contains(err.Error(), "Testfile") {
			t.Errorf("%q: error %v, want one naming the line", bad, err)
		}
	}
}
