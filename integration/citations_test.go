package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Answers and their citations (issue 8 items 1, 2, 13, 14), through a real
// Caddy: RAGFlow stand-ins serve answers that cite nothing, cite the wrong
// chunk, cite partly, or number their markers in the prompt's order.

// Two chunks of the kunora-kgent memory page, as RAGFlow retrieves them.
const (
	redisChunk  = "## Memory backends\n\n- `redis` — the default for production. Every replica reads and writes the same memory, keys expire by TTL, and a restart loses nothing."
	windowChunk = "## memory.window\n\nThe number of turns kept verbatim in the prompt. The default is 20; older turns are summarized."
)

// scoredChunk is an in-scope kunora-kgent chunk with its own score.
func scoredChunk(id string, score float64, page, content string) string {
	return fmt.Sprintf(`{"id":%q,"content":%q,"document_id":"d-%s","document_keyword":"%s.md","dataset_id":%q,
	  "similarity":%g,"vector_similarity":%g,"term_similarity":%g,"positions":[],
	  "document_metadata":{"path":"%s/%s.md","url":"/system/components/kunora-kgent/%s/","title":"T %s","project":"kunora-kgent","version":"main","status":"approved"}}`,
		id, content, id, page, kgentMainApproved, score, score, score, kgentPath, page, page, id)
}

// memoryRetrieval answers every retrieval with block 0 = the window chunk
// (score 0.4) and block 1 = the Redis chunk (score 0.8).
var memoryRetrieval = writeString(`{"code":0,"data":{"chunks":[` +
	scoredChunk("c-window", 0.4, "memory-window", windowChunk) + `,` +
	scoredChunk("c-redis", 0.8, "memory", redisChunk) + `],"doc_aggs":[],"total":2}}`)

func completion(answer string) func(http.ResponseWriter) {
	b, _ := json.Marshal(map[string]any{"code": 0, "message": "success", "data": map[string]any{"answer": answer, "reference": map[string]any{}}})
	return writeString(string(b))
}

// refPattern is how a client reads the answer's references.
var refPattern = regexp.MustCompile(`\[(\d+)\]`)

// checkReferences: the answer carries no RAGFlow marker, every [n] names a
// returned citation, every citation is referenced, and grounding describes
// citation n as ref n.
func checkReferences(t *testing.T, body map[string]any) {
	t.Helper()
	answer, citations := body["answer"].(string), body["citations"].([]any)
	if strings.Contains(answer, "ID:") || strings.Contains(answer, "##") {
		t.Errorf("raw RAGFlow marker in the answer: %q", answer)
	}
	seen := map[int]bool{}
	for _, m := range refPattern.FindAllStringSubmatch(answer, -1) {
		n, _ := strconv.Atoi(m[1])
		if n < 1 || n > len(citations) {
			t.Errorf("[%d] names no citation (%d returned): %q", n, len(citations), answer)
		}
		seen[n] = true
	}
	grounding, ok := body["grounding"].(map[string]any)["citations"].([]any)
	if !ok || len(grounding) != len(citations) {
		t.Fatalf("grounding.citations must describe each citation: %v", body["grounding"])
	}
	for i, c := range citations {
		g := grounding[i].(map[string]any)
		if !seen[i+1] || g["ref"].(float64) != float64(i+1) || g["chunkId"] != c.(map[string]any)["chunkId"] {
			t.Errorf("citation %d unreferenced or misdescribed (%v) in %q", i+1, g, answer)
		}
	}
}

func askBody(t *testing.T, g *gate, auth map[string]string, body string) map[string]any {
	t.Helper()
	r := g.post("/agent/tools/ask", auth, body)
	if r.Status != 200 {
		t.Fatalf("ask: %d %s", r.Status, r.Body)
	}
	return r.json(t)
}

func noAnswerReason(body map[string]any) string {
	if r, ok := body["noAnswerReason"].(map[string]any); ok {
		return r["reason"].(string)
	}
	return ""
}

// TestCitationsNeverAnUncitedAnswer (item 1): an answer whose text cites
// nothing it can be held to is a no-answer, with requireCitations false
// too; without markers, requireCitations false lets the gate cite the
// supporting chunk.
func TestCitationsNeverAnUncitedAnswer(t *testing.T) {
	unsupported := completion("Contractors are paid monthly through the payroll portal.")
	g := startGate(t, gateOptions{ragflowURL: fakeRAGFlow(t, memoryRetrieval, unsupported)})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	for _, req := range []string{`{"question":"payroll?","requireCitations":false}`, `{"question":"payroll?"}`} {
		body := askBody(t, g, tok, req)
		if noAnswerReason(body) != "uncited_answer" || body["answer"] != "" || body["confidence"] != "low" || len(body["citations"].([]any)) != 0 || len(body["actions"].([]any)) == 0 {
			t.Errorf("%s: want a no-answer with feedback actions, got %v", req, body)
		}
	}

	unmarked := completion("Redis is the default for production. The default window is 20 turns.")
	g = startGate(t, gateOptions{ragflowURL: fakeRAGFlow(t, memoryRetrieval, unmarked)})
	body := askBody(t, g, tok, `{"question":"memory","requireCitations":false}`)
	if body["answer"] != "Redis is the default for production [1]. The default window is 20 turns [2]." || noAnswerReason(body) != "" {
		t.Fatalf("requireCitations false: want the gate's citations, got %v", body)
	}
	checkReferences(t, body)
	if body := askBody(t, g, tok, `{"question":"memory"}`); noAnswerReason(body) != "uncited_answer" {
		t.Errorf("requireCitations true: unmarked text must be a no-answer, got %v", body)
	}
}

// TestCitationsAnswerNumberedAsItsCitations (item 2): the prompt's block
// numbers become the returned list's [1], [2] (in order of first
// citation, so a streamed sentence keeps its numbers), in ask,
// in a session's first answer and turns, and get_context lists items and
// citations in one order.
func TestCitationsAnswerNumberedAsItsCitations(t *testing.T) {
	answer := completion("The default window is 20 turns [ID:0]. Redis is the default for production [ID:1][ID:7].")
	g := startGate(t, gateOptions{ragflowURL: fakeRAGFlow(t, memoryRetrieval, answer)})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	want := "The default window is 20 turns [1]. Redis is the default for production [2]."
	check := func(where string, body map[string]any) {
		t.Helper()
		citations := body["citations"].([]any)
		if body["answer"] != want || len(citations) != 2 || citations[0].(map[string]any)["chunkId"] != "c-window" || citations[1].(map[string]any)["chunkId"] != "c-redis" {
			t.Errorf("%s: answer %q citations %v", where, body["answer"], citations)
		}
		checkReferences(t, body)
	}
	check("ask", askBody(t, g, tok, `{"question":"memory"}`))

	r := g.post("/answer/sessions", tok, `{"question":"memory"}`)
	if r.Status != 200 {
		t.Fatalf("session: %d %s", r.Status, r.Body)
	}
	created := r.json(t)
	check("session first answer", created["firstAnswer"].(map[string]any))
	turn := g.post("/answer/sessions/"+created["sessionId"].(string)+"/turns", withSession(tok, created["sessionToken"].(string)), `{"question":"and the window?"}`)
	if turn.Status != 200 {
		t.Fatalf("turn: %d %s", turn.Status, turn.Body)
	}
	check("session turn", turn.json(t))

	r = g.post("/agent/tools/get_context", tok, `{"question":"memory"}`)
	pack := r.json(t)
	items, citations := pack["items"].([]any), pack["citations"].([]any)
	if r.Status != 200 || len(items) != 2 || len(citations) != 2 {
		t.Fatalf("get_context: %d %s", r.Status, r.Body)
	}
	for i := range items {
		if items[i].(map[string]any)["chunkId"] != citations[i].(map[string]any)["chunkId"] {
			t.Errorf("get_context: item %d and citation %d differ: %s", i, i, r.Body)
		}
	}
	if items[0].(map[string]any)["chunkId"] != "c-redis" {
		t.Errorf("get_context: items[0] must be the best chunk: %s", r.Body)
	}
}

// TestCitationsPartlyCitedAnswerShowsOnlyWhatIsSupported (item 13): an
// uncited sentence in a cited answer is dropped, and grounding says so.
func TestCitationsPartlyCitedAnswerShowsOnlyWhatIsSupported(t *testing.T) {
	answer := completion("Redis is the default for production [ID:1]. It was invented at Kunora in 2019. The default window is 20 turns [ID:0].")
	g := startGate(t, gateOptions{ragflowURL: fakeRAGFlow(t, memoryRetrieval, answer)})
	body := askBody(t, g, bearer(agentToken(t, "kunora-coding-agent")), `{"question":"memory"}`)
	if body["answer"] != "Redis is the default for production [1]. The default window is 20 turns [2]." {
		t.Fatalf("the uncited sentence must be dropped: %v", body)
	}
	gr := body["grounding"].(map[string]any)
	if gr["status"] != "partial" || gr["sentences"] != 3.0 || gr["citedSentences"] != 2.0 || gr["droppedSentences"] != 1.0 || body["confidence"] == "high" {
		t.Errorf("grounding must report the dropped sentence: %v (confidence %v)", gr, body["confidence"])
	}
	checkReferences(t, body)
}

// TestCitationsWrongChunkOnTheSampleWiki (item 14): the sample wiki's own
// chunks (the development RAGFlow's retrieval) and a model that cites the
// wrong block: the answer is withheld; citing the right block answers,
// with a support score per citation.
func TestCitationsWrongChunkOnTheSampleWiki(t *testing.T) {
	for _, tc := range []struct {
		name  string
		wrong bool
	}{{"wrong block", true}, {"right block", false}} {
		t.Run(tc.name, func(t *testing.T) {
			var devRAG string
			var cited promptBlock
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/api/v1/chat/completions" {
					forward(w, r, devRAG) // retrieval and health probes
					return
				}
				var answer string
				answer, cited = answerFromPrompt(t, r, tc.wrong)
				w.Header().Set("Content-Type", "application/json")
				completion(answer)(w)
			}))
			t.Cleanup(srv.Close)
			g := startGate(t, gateOptions{ragflowURL: srv.URL})
			devRAG = g.ragURL
			body := askBody(t, g, bearer(agentToken(t, "kunora-coding-agent")), `{"question":"How do I use Redis as the agent memory store?"}`)
			if tc.wrong {
				if noAnswerReason(body) != "uncited_answer" || body["answer"] != "" {
					t.Fatalf("a sentence citing the wrong chunk must not be shown: %v", body)
				}
				return
			}
			citations := body["citations"].([]any)
			if noAnswerReason(body) != "" || len(citations) != 1 || citations[0].(map[string]any)["path"] != cited.path {
				t.Fatalf("want the sentence cited by its own page %s: %v", cited.path, body)
			}
			checkReferences(t, body)
			if s := body["grounding"].(map[string]any)["citations"].([]any)[0].(map[string]any)["support"].(float64); s < 0.9 {
				t.Errorf("a sentence copied from its chunk scores %v", s)
			}
		})
	}
}

// promptBlock is one "ID: n" block of the gate's prompt.
type promptBlock struct {
	n             int
	path, content string
}

var blockHeader = regexp.MustCompile(`(?m)^ID: (\d+)\nTitle: .*\nPath: (.*)\nContent: `)

// answerFromPrompt writes one sentence of the first block with prose and
// cites it with its own block, or (wrong) with a block of another page.
func answerFromPrompt(t *testing.T, r *http.Request, wrong bool) (string, promptBlock) {
	var req struct {
		Messages []struct{ Content string } `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		t.Errorf("completion request: %v", err)
		return "", promptBlock{}
	}
	prompt := req.Messages[len(req.Messages)-1].Content
	var blocks []promptBlock
	locs := blockHeader.FindAllStringSubmatchIndex(prompt, -1)
	for i, m := range locs {
		end := strings.Index(prompt, "\nQuestion: ")
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		n, _ := strconv.Atoi(prompt[m[2]:m[3]])
		blocks = append(blocks, promptBlock{n: n, path: prompt[m[4]:m[5]], content: prompt[m[1]:end]})
	}
	for _, b := range blocks {
		s := proseSentence(b.content)
		if s == "" {
			continue
		}
		if !wrong {
			return fmt.Sprintf("%s [ID:%d]", s, b.n), b
		}
		for _, other := range blocks {
			if other.path != b.path {
				return fmt.Sprintf("%s [ID:%d]", s, other.n), other
			}
		}
	}
	t.Errorf("no usable blocks in the prompt:\n%s", prompt)
	return "", promptBlock{}
}

// proseSentence is the first plain sentence of a chunk (no heading, list,
// table or code), at least 40 characters.
func proseSentence(content string) string {
	for line := range strings.SplitSeq(content, "\n") {
		line = strings.TrimSpace(line)
		if len(line) < 40 || strings.ContainsAny(line[:1], "#-*|`>") {
			continue
		}
		if i := strings.Index(line, ". "); i > 0 {
			line = line[:i+1]
		}
		if len(line) >= 40 && strings.HasSuffix(line, ".") {
			return line
		}
	}
	return ""
}

// forward passes a request on to the development RAGFlow.
func forward(w http.ResponseWriter, r *http.Request, base string) {
	body, _ := io.ReadAll(r.Body)
	req, _ := http.NewRequest(r.Method, base+r.URL.Path, bytes.NewReader(body))
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.WriteHeader(502)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}
