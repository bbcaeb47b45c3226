package integration

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// okRetrieval is one in-scope chunk, as RAGFlow's retrieval returns it.
func okRetrieval() string {
	return `{"code":0,"data":{"chunks":[` + chunkJSON("in", kgentMainApproved, kgentPath+"/memory.md", "kunora-kgent", "main", "approved", "Agent memory uses a window.") + `],"total":1}}`
}

// sseEvent is one RAGFlow stream event carrying an answer delta.
func sseEvent(delta string) string {
	return fmt.Sprintf("data:{\"code\":0,\"message\":\"\",\"data\":{\"answer\":%q,\"reference\":{}}}\n\n", delta)
}

const sseEnd = "data:{\"code\":0,\"message\":\"\",\"data\":true}\n\n"

// streamingRAGFlow answers retrieval at once and generation with a stream
// written by stream.
func streamingRAGFlow(t *testing.T, stream func(w http.ResponseWriter, r *http.Request)) string {
	return httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/retrieval" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(okRetrieval()))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		stream(w, r)
	})
}

func httpServer(t *testing.T, h http.HandlerFunc) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// sleepOrGone waits d, or until the caller hangs up (which Go's server
// notices only once the request body has been read).
func sleepOrGone(r *http.Request, d time.Duration) {
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-time.After(d):
	case <-r.Context().Done():
	}
}

func askWithin(t *testing.T, g *gate, limit time.Duration) response {
	t.Helper()
	start := time.Now()
	r := g.post("/agent/tools/ask", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`)
	if took := time.Since(start); took > limit {
		t.Errorf("ask took %v, want under %v", took, limit)
	}
	return r
}

func TestStalledRetrievalFailsFast(t *testing.T) {
	rag := httpServer(t, func(_ http.ResponseWriter, r *http.Request) { sleepOrGone(r, 20*time.Second) })
	// No timeout line: the ragflow block's defaults apply.
	g := startGate(t, gateOptions{ragflowURL: rag, ragflowExtra: "stream on"})
	r := askWithin(t, g, 10*time.Second)
	if r.Status != 503 || r.errorCode(t) != "ragflow_unavailable" {
		t.Fatalf("a retrieval stalled 20s: got %d %s, want 503 ragflow_unavailable", r.Status, r.Body)
	}
}

func TestStalledStreamFailsFast(t *testing.T) {
	rag := streamingRAGFlow(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(sseEvent("Memory uses ")))
		w.(http.Flusher).Flush()
		sleepOrGone(r, 20*time.Second)
	})
	g := startGate(t, gateOptions{ragflowURL: rag, ragflowExtra: "idle_timeout 1s"})
	r := askWithin(t, g, 10*time.Second)
	if r.Status != 503 || r.errorCode(t) != "ragflow_unavailable" {
		t.Fatalf("a stream silent for 20s: got %d %s, want 503 ragflow_unavailable", r.Status, r.Body)
	}
}

func TestGenerationWithoutFirstByteFailsFast(t *testing.T) {
	rag := streamingRAGFlow(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		sleepOrGone(r, 20*time.Second)
	})
	g := startGate(t, gateOptions{ragflowURL: rag, ragflowExtra: "first_byte_timeout 1s"})
	r := askWithin(t, g, 10*time.Second)
	if r.Status != 503 || r.errorCode(t) != "ragflow_unavailable" {
		t.Fatalf("a generation without a first byte for 20s: got %d %s, want 503 ragflow_unavailable", r.Status, r.Body)
	}
}

// A long answer that keeps streaming is answered, although it takes longer
// than every single bound: the generation's first-byte and idle timeouts
// and the server's read timeouts.
func TestSteadyLongAnswerIsNotCut(t *testing.T) {
	deltas := []string{"Agent ", "memory ", "uses ", "a ", "window ", "[ID:0]", "."}
	rag := streamingRAGFlow(t, func(w http.ResponseWriter, r *http.Request) {
		for _, d := range deltas {
			sleepOrGone(r, 400*time.Millisecond)
			_, _ = w.Write([]byte(sseEvent(d)))
			w.(http.Flusher).Flush()
		}
		_, _ = w.Write([]byte(sseEnd))
	})
	g := startGate(t, gateOptions{
		ragflowURL:   rag,
		ragflowExtra: "first_byte_timeout 1s\n\t\t\tidle_timeout 1s",
		globalExtra:  "servers {\n\t\ttimeouts {\n\t\t\tread_header 1s\n\t\t\tread_body 1s\n\t\t\tidle 5s\n\t\t}\n\t}",
	})
	r := g.post("/agent/tools/ask", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`)
	if r.Status != 200 || !strings.Contains(string(r.Body), "window") {
		t.Fatalf("a steady 3s answer: got %d %s, want 200 with the answer", r.Status, r.Body)
	}
}
