package integration

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wikigate/wikigate/devbackends/devragflow"
	"github.com/wikigate/wikigate/samplewiki"
)

// recordedRetrievals records the bodies of the retrievals a RAGFlow
// received.
type recordedRetrievals struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (r *recordedRetrievals) take() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.bodies
	r.bodies = nil
	return out
}

// recordingRAGFlow is the development RAGFlow over the sample wiki behind
// a handler that records every retrieval body.
func recordingRAGFlow(t *testing.T) (string, *recordedRetrievals) {
	t.Helper()
	corpus, err := samplewiki.Load()
	if err != nil {
		t.Fatal(err)
	}
	rag, err := devragflow.New(devragflow.Config{APIKey: ragflowKey, Corpus: corpus})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordedRetrievals{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/retrieval" {
			raw, _ := io.ReadAll(r.Body)
			var body map[string]any
			_ = json.Unmarshal(raw, &body)
			rec.mu.Lock()
			rec.bodies = append(rec.bodies, body)
			rec.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(raw))
		}
		rag.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, rec
}

// TestMultiQueryRetrievalKeepsTheDecidedScope: with retrieval { queries 3 }
// an agent's ask makes one retrieval per keyword set, and every one
// carries the same decided datasets (never empty) and path condition, and
// no document_ids; what comes back cites only the agent's grant. Without
// the option, one retrieval of the question as typed; rerank_id and
// keyword are never sent unless configured.
func TestMultiQueryRetrievalKeepsTheDecidedScope(t *testing.T) {
	const question = "How long are the RDB snapshots of agent memory kept in kunora-kgent?"
	body := `{"question":"` + question + `"}`
	for _, tc := range []struct {
		name    string
		extra   string
		queries []string
	}{
		{"default", "", []string{question}},
		{"queries 3", "retrieval {\n queries 3\n }", []string{question, "RDB snapshots agent memory kept kunora-kgent", "RDB kunora-kgent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ragURL, rec := recordingRAGFlow(t)
			g := startGate(t, gateOptions{ragflowURL: ragURL, ragflowExtra: "timeout 20s\n" + tc.extra})
			rec.take()
			resp := g.post("/agent/tools/ask", map[string]string{"Authorization": "Bearer " + agentToken(t, "kunora-coding-agent")}, body)
			if resp.Status != http.StatusOK {
				t.Fatalf("ask: %d %s", resp.Status, resp.Body)
			}
			var got []string
			bodies := rec.take()
			for _, b := range bodies {
				got = append(got, b["question"].(string))
				ids, _ := b["dataset_ids"].([]any)
				if len(ids) == 0 || !reflect.DeepEqual(b["dataset_ids"], bodies[0]["dataset_ids"]) {
					t.Errorf("dataset_ids %v, want the decided ones, as the first retrieval's %v", b["dataset_ids"], bodies[0]["dataset_ids"])
				}
				cond, _ := json.Marshal(b["metadata_condition"])
				if b["metadata_condition"] == nil || !reflect.DeepEqual(b["metadata_condition"], bodies[0]["metadata_condition"]) ||
					!strings.Contains(string(cond), "publish/system/components/kunora-kgent") {
					t.Errorf("metadata_condition %s, want the grant's path for every retrieval", cond)
				}
				for _, never := range []string{"document_ids", "rerank_id", "keyword"} {
					if _, has := b[never]; has {
						t.Errorf("retrieval carries %s: %v", never, b[never])
					}
				}
			}
			slices.Sort(got) // asked at once: any order
			want := slices.Sorted(slices.Values(tc.queries))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("retrieval questions %q, want %q", got, want)
			}
			var res struct {
				Citations []struct{ Path string } `json:"citations"`
			}
			if err := json.Unmarshal(resp.Body, &res); err != nil {
				t.Fatal(err)
			}
			for _, c := range res.Citations {
				if !strings.HasPrefix(c.Path, "publish/system/components/kunora-kgent/") {
					t.Errorf("cited %s, outside the grant", c.Path)
				}
			}
		})
	}
}
