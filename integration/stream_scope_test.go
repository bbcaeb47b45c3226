package integration

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// A model that cites every block it may have seen, word by word: the
// stream shows only what the in-scope chunk supports, numbered as in the
// result. No delta, citation or result names an out-of-scope page, and no
// [n] points past the in-scope citation.
func TestStreamNeverShowsOutOfScopeMaterial(t *testing.T) {
	chunks := strings.Join([]string{
		chunkJSON("in", kgentMainApproved, kgentPath+"/memory.md", "kunora-kgent", "main", "approved",
			"Agent memory uses a sliding window of recent turns. The window size is set with memory.window in kgent.yaml and defaults to twenty turns."),
		chunkJSON("otherproject", gatewayMainApprove, "publish/system/components/kunora-gateway/index.md", "kunora-gateway", "main", "approved", "Gateway memory is a cache."),
		chunkJSON("working", kgentMainWorking, kgentPath+"/design/memory-v2.md", "kunora-kgent", "main", "working", "Draft memory recalls forever."),
		chunkJSON("oldversion", kgentV1Approved, kgentPath+"/memory.md", "kunora-kgent", "v1.0", "approved", "Old memory had no window."),
	}, ",")
	retrieval := writeString(`{"code":0,"data":{"chunks":[` + chunks + `],"doc_aggs":[],"total":4}}`)
	text := "Agent memory uses a sliding window of recent turns [ID:0]. The window size is set with memory.window in kgent.yaml and defaults to twenty turns [ID:0]. " +
		"Gateway memory is a cache [ID:1]. " +
		"Draft memory recalls forever [ID:2]. Old memory had no window [ID:3]."
	answer := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, word := range strings.SplitAfter(text, " ") {
			if sseAnswer(w, word) != nil {
				return
			}
		}
		_, _ = io.WriteString(w, "data:{\"code\":0,\"message\":\"\",\"data\":true}\n\n")
	}
	g := startGate(t, gateOptions{ragflowURL: fakeRAGFlow(t, retrieval, answer)})
	resp := g.streamAsk(t.Context(), "/agent/tools/ask", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`)
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, leak := range []string{"kunora-gateway", "design/memory-v2", "v1.0", "Gateway memory", "Draft memory", "Old memory", "[2]", "[3]", "[4]"} {
		if strings.Contains(string(raw), leak) {
			t.Errorf("the stream shows out-of-scope material %q:\n%s", leak, raw)
		}
	}
	result, deltas := checkSequence(t, readEvents(t, strings.NewReader(string(raw)), nil))
	cites := result["citations"].([]any)
	if len(cites) != 1 || cites[0].(map[string]any)["path"] != kgentPath+"/memory.md" {
		t.Fatalf("result citations: %v", cites)
	}
	if deltas != result["answer"] || !strings.Contains(deltas, "sliding window of recent turns [1]") {
		t.Fatalf("deltas %q, answer %q", deltas, result["answer"])
	}
}

// RAGFlow failing after the stream started (its code-500 event mid-answer):
// the stream ends with an error event carrying the protocol's envelope and
// the call's request id, then done; no result, none of RAGFlow's error
// text, and the audit record has the error's code.
func TestStreamBackendFailureIsAnErrorEventThenDone(t *testing.T) {
	answer := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		_ = sseAnswer(w, "Agent memory uses a sliding window of recent turns [ID:0]. ")
		_, _ = io.WriteString(w, "data:{\"code\":500,\"message\":\"boom\",\"data\":{\"answer\":\"**ERROR**: boom\",\"reference\":[]}}\n\n")
		_, _ = io.WriteString(w, "data:{\"code\":0,\"message\":\"\",\"data\":true}\n\n")
	}
	g, logFile := loggedGate(t, gateOptions{ragflowURL: fakeRAGFlow(t, inScopeRetrieval, answer)})
	resp := g.streamAsk(t.Context(), "/agent/tools/ask", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`)
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.Contains(string(raw), "boom") || strings.Contains(string(raw), "event: result") {
		t.Fatalf("stream of a failed generation: %d\n%s", resp.StatusCode, raw)
	}
	evs := readEvents(t, strings.NewReader(string(raw)), nil)
	n := len(evs)
	if n < 3 || evs[0].name != "status" || evs[n-2].name != "error" || evs[n-1].name != "done" {
		t.Fatalf("want status … error done: %v", evs)
	}
	e := decodeEvent(t, evs[n-2].data)["error"].(map[string]any)
	reqID := resp.Header.Get("X-Request-Id")
	if e["code"] != "ragflow_unavailable" || e["message"] == "" || e["requestId"] != reqID {
		t.Fatalf("error event %v (X-Request-Id %s)", e, reqID)
	}
	rec := waitAuditRecord(t, logFile, func(l map[string]any) bool { return l["request_id"] == reqID })
	if rec["result"] != "ragflow_unavailable" {
		t.Fatalf("audit record of a failed stream: %v", rec)
	}
}
