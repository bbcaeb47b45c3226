package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/wikigate/wikigate/devbackends/devragflow"
)

// devCompletions are the completions the development RAGFlow logged, oldest
// first.
func devCompletions(t *testing.T, g *gate) []devragflow.LoggedRequest {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, g.ragURL+"/_dev/requests", nil)
	req.Header.Set("Authorization", "Bearer "+ragflowKey)
	var log struct {
		Requests []devragflow.LoggedRequest `json:"requests"`
	}
	if err := json.Unmarshal(g.do(req).Body, &log); err != nil {
		t.Fatal(err)
	}
	var out []devragflow.LoggedRequest
	for _, r := range log.Requests {
		if r.Path == "/api/v1/chat/completions" {
			out = append(out, r)
		}
	}
	return out
}

// The development RAGFlow paced like a model (a delta every 200ms): a
// person who closes the page after the first verified text makes the gate
// cancel its generation, and the development RAGFlow's request log marks
// that completion cancelled; the same question read to the end is not.
func TestStreamHangUpCancelsTheDevRAGFlowGeneration(t *testing.T) {
	t.Setenv(devragflow.DeltaPauseEnv, "200ms")
	g := startGate(t, gateOptions{ragflowExtra: "timeout 30s"})
	const body = `{"question":"How do I configure agent memory?","page":{"url":"/system/components/kunora-kgent/"}}`

	whole := g.streamAsk(t.Context(), "/answer/ask", nil, body)
	checkSequence(t, readEvents(t, whole.Body, nil))
	whole.Body.Close()
	// The development RAGFlow logs a completion when its handler returns,
	// which may be just after the gate has sent done.
	var done []devragflow.LoggedRequest
	waitFor(t, "the first completion in the RAGFlow log", func() bool {
		done = devCompletions(t, g)
		return len(done) >= 1
	})
	if len(done) != 1 || done[0].Cancelled || done[0].Status != 200 {
		t.Fatalf("a stream read to its end, in the RAGFlow log: %+v", done)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	resp := g.streamAsk(ctx, "/answer/ask", nil, body)
	evs := readEvents(t, resp.Body, func(ev gateEvent) bool { return ev.name != "delta" })
	if evs[len(evs)-1].name != "delta" {
		t.Fatalf("no delta before the end: %v", evs)
	}
	left := time.Now()
	cancel() // the reader leaves mid-answer
	resp.Body.Close()
	var logged []devragflow.LoggedRequest
	waitFor(t, "the second completion in the RAGFlow log", func() bool {
		logged = devCompletions(t, g)
		return len(logged) == 2
	})
	if !logged[1].Cancelled {
		t.Fatalf("the generation of a reader who left is not marked cancelled: %+v", logged[1])
	}
	t.Logf("RAGFlow logged the cancelled completion %v after the reader left", time.Since(left).Round(time.Millisecond))
}
