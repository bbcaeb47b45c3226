package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// heldRAGFlow is a RAGFlow stand-in the test paces: retrieval answers the
// two kunora-kgent memory chunks (block 0 scores 0.4, block 1 scores 0.8);
// a streamed completion sends a first sentence citing the lower-scoring
// block and the start of a second, then, while hold is set, tells the test
// and blocks until the test releases it before sending the rest (a
// citation of the better-scoring block) and the end.
type heldRAGFlow struct {
	url     string
	mu      sync.Mutex
	hold    chan struct{} // nil: do not wait
	waiting chan struct{} // receives once the completion blocks
	// completions counts the generations asked for.
	completions atomic.Int32
}

const (
	heldFirst  = "The default window is 20 turns [ID:0]. "
	heldSecond = "Redis is "
	heldRest   = "the default for production [ID:1]."
)

func startHeldRAGFlow(t *testing.T) *heldRAGFlow {
	h := &heldRAGFlow{waiting: make(chan struct{}, 1)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/api/v1/retrieval":
			w.Header().Set("Content-Type", "application/json")
			memoryRetrieval(w)
		case "/api/v1/chat/completions":
			h.completions.Add(1)
			h.complete(w, r)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	h.url = srv.URL
	return h
}

func (h *heldRAGFlow) complete(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	if sseAnswer(w, heldFirst) != nil || sseAnswer(w, heldSecond) != nil {
		return
	}
	h.mu.Lock()
	hold := h.hold
	h.mu.Unlock()
	if hold != nil {
		h.waiting <- struct{}{}
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		case <-time.After(20 * time.Second): // bounded: a test that never releases
		}
	}
	_ = sseAnswer(w, heldRest)
	_, _ = io.WriteString(w, "data:{\"code\":0,\"message\":\"\",\"data\":true}\n\n")
}

// setHold makes the next completions wait for the returned channel to close.
func (h *heldRAGFlow) setHold(on bool) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hold = nil
	if on {
		h.hold = make(chan struct{})
	}
	return h.hold
}

// TestStreamSendsASentenceWhileTheModelIsStillGenerating (issue 24 point
// 1): the first sentence cites a chunk that scores lower than one the
// model cites later. It is streamed while the backend is still generating
// (counted in events received before the backend's last chunk is sent,
// not in time), its numbers are the result's, the deltas add up to the
// result's answer byte for byte, and the JSON route numbers the same way.
// Before, citations were ordered by score and the sentence waited for the
// end of the generation.
func TestStreamSendsASentenceWhileTheModelIsStillGenerating(t *testing.T) {
	rag := startHeldRAGFlow(t)
	g := startGate(t, gateOptions{ragflowURL: rag.url, ragflowExtra: "idle_timeout 30s"})
	const want = "The default window is 20 turns [1]. Redis is the default for production [2]."
	cases := []struct {
		name, path, body string
		headers          map[string]string
	}{
		{"agent", "/agent/tools/ask", `{"question":"memory"}`, bearer(agentToken(t, "kunora-coding-agent"))},
		{"person", "/answer/ask", `{"question":"memory","page":{"url":"/system/components/kunora-kgent/"}}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			release := rag.setHold(true)
			resp := g.streamAsk(t.Context(), tc.path, tc.headers, tc.body)
			defer resp.Body.Close()
			evs := make(chan gateEvent, 64)
			go func() {
				defer close(evs)
				readEvents(t, resp.Body, func(ev gateEvent) bool { evs <- ev; return true })
			}()
			select {
			case <-rag.waiting:
			case <-time.After(10 * time.Second):
				t.Fatal("the generation never started")
			}
			before := eventsUntilDelta(evs, 5*time.Second)
			close(release) // the backend sends its last chunk
			all := before
			for ev := range evs {
				all = append(all, ev)
			}
			deltasBefore := countNamed(before, "delta")
			t.Logf("%d events (%d deltas) before the backend's last chunk, %d in all", len(before), deltasBefore, len(all))
			if deltasBefore < 1 {
				t.Fatalf("no delta while the backend was still generating: %v", names(before))
			}
			result, deltas := checkSequence(t, all)
			if deltas != result["answer"] || result["answer"] != want {
				t.Fatalf("deltas %q, result %q", deltas, result["answer"])
			}
			checkDeltaNumbers(t, all, result)
			rag.setHold(false)
			jsonBody := g.post(tc.path, tc.headers, tc.body).json(t)
			if jsonBody["answer"] != want || !reflect.DeepEqual(result["citations"], jsonBody["citations"]) {
				t.Errorf("JSON route: answer %q citations %v, the stream's %v", jsonBody["answer"], jsonBody["citations"], result["citations"])
			}
		})
	}
}

// eventsUntilDelta takes events until the first delta, the end of the
// stream, or the wait (a bound, not a speed target: the test then fails on
// the count).
func eventsUntilDelta(evs <-chan gateEvent, wait time.Duration) []gateEvent {
	var out []gateEvent
	timeout := time.After(wait)
	for {
		select {
		case ev, ok := <-evs:
			if !ok {
				return out
			}
			out = append(out, ev)
			if ev.name == "delta" {
				return out
			}
		case <-timeout:
			return out
		}
	}
}

func countNamed(evs []gateEvent, name string) int {
	n := 0
	for _, ev := range evs {
		if ev.name == name {
			n++
		}
	}
	return n
}

func names(evs []gateEvent) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.name)
	}
	return out
}

// checkDeltaNumbers: each [n] of a delta names, in the citations announced
// before it, the chunk the result numbers n.
func checkDeltaNumbers(t *testing.T, evs []gateEvent, result map[string]any) {
	t.Helper()
	final := result["citations"].([]any)
	var announced []any
	for _, ev := range evs {
		var d map[string]any
		_ = json.Unmarshal([]byte(ev.data), &d)
		switch ev.name {
		case "citations":
			announced = d["citations"].([]any)
		case "delta":
			for _, m := range deltaRef.FindAllStringSubmatch(d["text"].(string), -1) {
				n, _ := strconv.Atoi(m[1])
				got := announced[n-1].(map[string]any)["chunkId"]
				if n > len(final) || final[n-1].(map[string]any)["chunkId"] != got {
					t.Errorf("delta [%d] named chunk %v; the result's [%d] is another", n, got, n)
				}
			}
		}
	}
}
