package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Dataset ids of the sample catalog (rego/data.json).
const (
	kgentMainWorking   = "32a7ab278e7c1b4897cce0b41a3c415f"
	kgentV1Approved    = "c87a9f460463eb0f13d182441f32c32d"
	gatewayMainApprove = "3d6bf633a5bee58ca807c73fec2b5593"
)

// chunkJSON is one retrieval chunk as RAGFlow G2 returns it, from dataset
// ds, with the document metadata the corpus convention puts on every
// document.
func chunkJSON(id, ds, path, project, version, status, content string) string {
	return fmt.Sprintf(`{"id":%q,"content":%q,"document_id":"d-%s","document_keyword":"x.md","dataset_id":%q,
	  "similarity":0.9,"vector_similarity":0.9,"term_similarity":0.9,"positions":[],
	  "document_metadata":{"path":%q,"url":"/x","title":"T %s","project":%q,"version":%q,"status":%q}}`,
		id, content, id, ds, path, id, project, version, status)
}

// fakeRAGFlow answers retrieval with retrieval and completion with answer.
func fakeRAGFlow(t *testing.T, retrieval, answer func(w http.ResponseWriter)) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v1/retrieval":
			retrieval(w)
		case "/api/v1/chat/completions":
			answer(w)
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func writeString(s string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) { _, _ = w.Write([]byte(s)) }
}

func TestOutOfScopeChunksNeverReachTheCaller(t *testing.T) {
	chunks := strings.Join([]string{
		chunkJSON("in", kgentMainApproved, kgentPath+"/memory.md", "kunora-kgent", "main", "approved", "Agent memory uses a window."),
		chunkJSON("otherproject", gatewayMainApprove, "publish/system/components/kunora-gateway/index.md", "kunora-gateway", "main", "approved", "Gateway memory."),
		chunkJSON("working", kgentMainWorking, kgentPath+"/design/memory-v2.md", "kunora-kgent", "main", "working", "Draft memory."),
		chunkJSON("extras", kgentMainApproved, "publish/system/components/kunora-kgent-extras/memory.md", "kunora-kgent", "main", "approved", "Extras memory."),
		chunkJSON("oldversion", kgentV1Approved, kgentPath+"/memory.md", "kunora-kgent", "v1.0", "approved", "Old memory."),
		// Metadata that claims an approved in-scope page, from the working
		// dataset: dropped for its dataset.
		chunkJSON("mislabelled", kgentMainWorking, kgentPath+"/design/memory-v2.md", "kunora-kgent", "main", "approved", "Mislabelled draft."),
	}, ",")
	retrieval := writeString(`{"code":0,"data":{"chunks":[` + chunks + `],"doc_aggs":[],"total":5}}`)
	// The answer cites every block it was given, plus one that does not exist.
	answer := writeString(`{"code":0,"message":"success","data":{"answer":"Memory uses a window [ID:0]. Also [ID:1] [ID:2] [ID:3] [ID:4] [ID:5] [ID:9].","reference":{},"prompt":"","created_at":1.0,"id":null,"session_id":""}}`)
	g := startGate(t, gateOptions{ragflowURL: fakeRAGFlow(t, retrieval, answer), extraOptions: "log_questions"})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	leaked := []string{"kunora-gateway", "design/memory-v2", "kunora-kgent-extras", "v1.0", "ID:9", "Mislabelled"}

	r := g.post("/agent/tools/ask", tok, `{"question":"agent memory"}`)
	if r.Status != 200 || len(r.json(t)["citations"].([]any)) != 1 {
		t.Fatalf("want exactly the one in-scope citation: %d %s", r.Status, r.Body)
	}
	r2 := g.post("/agent/tools/get_context", tok, `{"question":"agent memory"}`)
	if r2.Status != 200 || len(r2.json(t)["items"].([]any)) != 1 {
		t.Fatalf("want exactly the one in-scope context item: %d %s", r2.Status, r2.Body)
	}
	for _, body := range []string{string(r.Body), string(r2.Body)} {
		for _, s := range leaked {
			if strings.Contains(body, s) {
				t.Errorf("out-of-scope material %q reached the caller: %s", s, body)
			}
		}
	}
}

func TestRAGFlowFailuresNeverBecomeAnswers(t *testing.T) {
	okRetrieval := writeString(`{"code":0,"data":{"chunks":[` + chunkJSON("in", kgentMainApproved, kgentPath+"/memory.md", "kunora-kgent", "main", "approved", "Agent memory uses a window.") + `],"doc_aggs":[],"total":1}}`)
	okAnswer := writeString(`{"code":0,"message":"success","data":{"answer":"Window [ID:0].","reference":{}}}`)
	slow := func(w http.ResponseWriter) { time.Sleep(4 * time.Second); okAnswer(w) }
	closed := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	cases := []struct {
		name   string
		url    string
		status int
	}{
		{"unreachable", closed, 503},
		{"code 102 with HTTP 200", fakeRAGFlow(t, writeString(`{"code":102,"message":"You don't own the dataset x."}`), okAnswer), 503},
		{"invalid JSON", fakeRAGFlow(t, writeString(`{"code":0,"data":`), okAnswer), 502},
		{"HTML", fakeRAGFlow(t, writeString(`<html><body>502 Bad Gateway</body></html>`), okAnswer), 502},
		{"generation error", fakeRAGFlow(t, okRetrieval, writeString(`{"code":100,"message":"ValueError('boom')"}`)), 503},
		{"generation timeout", fakeRAGFlow(t, okRetrieval, slow), 503},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := startGate(t, gateOptions{ragflowURL: tc.url})
			r := g.post("/agent/tools/ask", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`)
			if r.Status != tc.status || r.errorCode(t) != "ragflow_unavailable" {
				t.Fatalf("got %d %s, want %d ragflow_unavailable", r.Status, r.Body, tc.status)
			}
			if strings.Contains(string(r.Body), `"answer":`) || strings.Contains(string(r.Body), "Window") {
				t.Fatalf("a failure must carry no answer text: %s", r.Body)
			}
		})
	}
}
