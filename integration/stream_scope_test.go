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
