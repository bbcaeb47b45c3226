package integration

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// ragflowTap sits between the gate and the development RAGFlow: it keeps
// the body of every completion request and can run a function in the middle
// of the next one, while the gate waits for its answer.
type ragflowTap struct {
	upstream atomic.Pointer[url.URL]
	mu       sync.Mutex
	prompts  []string
	during   atomic.Pointer[func()]
}

func newRAGFlowTap(t *testing.T) (*ragflowTap, string) {
	tap := &ragflowTap{}
	srv := httptest.NewServer(http.HandlerFunc(tap.serve))
	t.Cleanup(srv.Close)
	return tap, srv.URL
}

func (tap *ragflowTap) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api/v1/chat/completions" {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		tap.mu.Lock()
		tap.prompts = append(tap.prompts, string(body))
		tap.mu.Unlock()
		if fn := tap.during.Swap(nil); fn != nil {
			(*fn)()
		}
	}
	upstream := tap.upstream.Load()
	if upstream == nil { // the gate's health probe, before the test set it
		http.Error(w, "tap not connected yet", http.StatusServiceUnavailable)
		return
	}
	httputil.NewSingleHostReverseProxy(upstream).ServeHTTP(w, r)
}

// completions is how many completion requests the tap has seen.
func (tap *ragflowTap) completions() int {
	tap.mu.Lock()
	defer tap.mu.Unlock()
	return len(tap.prompts)
}

// lastPrompt is the body of the latest completion request.
func (tap *ragflowTap) lastPrompt() string {
	tap.mu.Lock()
	defer tap.mu.Unlock()
	if len(tap.prompts) == 0 {
		return ""
	}
	return tap.prompts[len(tap.prompts)-1]
}

func startTappedGate(t *testing.T, sessions string) (*gate, *ragflowTap) {
	tap, tapURL := newRAGFlowTap(t)
	// Without the policy's rate limits: these tests are about the session
	// store's own budgets, which take thousands of creates to reach.
	// A long RAGFlow timeout: a function run during a completion (filling
	// the store with hundreds of sessions) holds the answer back, and under
	// the race detector on a loaded machine that takes more than the
	// harness's default 3s.
	g := startGate(t, gateOptions{ragflowURL: tapURL, policyDir: unlimitedPolicy(t), ragflowExtra: "timeout 60s", extraOptions: "sessions {\n" + sessions + "\n}"})
	u, _ := url.Parse(g.ragURL)
	tap.upstream.Store(u)
	return g, tap
}

// TestDuplicateSessionTokenHeaders: two X-Session-Token headers are
// refused like two Authorization headers, whichever copy is right.
func TestDuplicateSessionTokenHeaders(t *testing.T) {
	g := startGate(t, gateOptions{})
	tok := agentToken(t, "kunora-coding-agent")
	id, sessionToken := createSession(t, g, bearer(tok))
	for _, pair := range [][2]string{{sessionToken, "forged"}, {"forged", sessionToken}, {sessionToken, sessionToken}} {
		req, _ := http.NewRequest(http.MethodPost, g.url+"/answer/sessions/"+id+"/turns", strings.NewReader(`{"question":"agent memory"}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Add("X-Session-Token", pair[0])
		req.Header.Add("X-Session-Token", pair[1])
		r := g.do(req)
		if r.Status != 401 || r.errorCode(t) != "unauthorized" {
			t.Fatalf("two X-Session-Token headers: %d %s", r.Status, r.Body)
		}
		if strings.Contains(string(r.Body), sessionToken) {
			t.Fatal("the refusal echoes the session token")
		}
	}
	if r := g.post("/answer/sessions/"+id+"/turns", withSession(bearer(tok), sessionToken), `{"question":"agent memory"}`); r.Status != 200 {
		t.Fatalf("one X-Session-Token header: %d %s", r.Status, r.Body)
	}
}

// TestAnonymousSessionFlood is the reported attack: anonymous creates
// under a 1 MiB bound used to evict a signed-in caller's session. Now the
// flood ends in 429 rate_limited, before any RAGFlow call, and the victim's
// session keeps working.
func TestAnonymousSessionFlood(t *testing.T) {
	g, tap := startTappedGate(t, "max_memory 1MiB\nanonymous_memory 1MiB\nanonymous_sessions 1000000")
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	id, token := createSession(t, g, coding)

	refused := 0
	for i := 0; i < 6000 && refused == 0; i++ {
		r := g.post("/answer/sessions", nil, `{}`)
		switch {
		case r.Status == 429 && r.errorCode(t) == "rate_limited":
			refused = i
		case r.Status != 200:
			t.Fatalf("anonymous create %d: %d %s", i, r.Status, r.Body)
		}
	}
	if refused == 0 {
		t.Fatal("6000 anonymous sessions were accepted under a 1 MiB budget")
	}
	prompts := tap.completions()
	r := g.post("/answer/sessions", nil, `{"question":"How do I configure agent memory?"}`)
	if r.Status != 429 || tap.completions() != prompts {
		t.Fatalf("an anonymous create with a question past the budget: %d %s (%d completions)", r.Status, r.Body, tap.completions()-prompts)
	}
	if ra := r.Header.Get("Retry-After"); ra != "60" {
		t.Fatalf("a 429 must tell the caller when to retry: Retry-After %q", ra)
	}
	if r := g.post("/answer/sessions/"+id+"/turns", withSession(coding, token), `{"question":"How do I configure agent memory?"}`); r.Status != 200 {
		t.Fatalf("the agent's session after %d anonymous creates: %d %s", refused, r.Status, r.Body)
	}
	if r := g.post("/answer/sessions", coding, `{}`); r.Status != 200 {
		t.Fatalf("an agent create while the anonymous budget is full: %d %s", r.Status, r.Body)
	}
}

// TestSessionEvictedDuringItsTurn: the session is evicted while RAGFlow is
// generating its turn's answer. The owner is told session_expired (410),
// not a 500 after the answer was made.
//
// The store (max_memory 1MiB) evicts its oldest entries first. The test
// measures how many sessions it holds, fills it behind the victim to just
// under that before the turn, and writes the rest while the turn waits on
// RAGFlow, so the eviction fits well inside the RAGFlow timeout.
func TestSessionEvictedDuringItsTurn(t *testing.T) {
	g, tap := startTappedGate(t, "max_memory 1MiB")
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	capacity := storeCapacity(t, g, coding)
	id, token := createSession(t, g, coding)
	const margin = 400
	fill(t, g, coding, capacity-margin)
	if !sessionAlive(t, g, coding, id, token) {
		t.Fatalf("the victim was evicted before its turn (capacity %d)", capacity)
	}
	evict := func() { fill(t, g, coding, 2*margin) }
	tap.during.Store(&evict)
	r := g.post("/answer/sessions/"+id+"/turns", withSession(coding, token), `{"question":"How do I configure agent memory?"}`)
	if r.Status != 410 || r.errorCode(t) != "session_expired" {
		t.Fatalf("a turn whose session was evicted while it was answered: %d %s", r.Status, r.Body)
	}
}

// storeCapacity is about how many empty sessions of caller the store holds:
// sessions created behind a probe until the probe is evicted.
func storeCapacity(t *testing.T, g *gate, caller map[string]string) int {
	id, token := createSession(t, g, caller)
	const batch = 100
	for n := batch; n <= 20000; n += batch {
		fill(t, g, caller, batch)
		if !sessionAlive(t, g, caller, id, token) {
			return n - batch
		}
	}
	t.Fatal("20000 sessions fit in a 1 MiB store")
	return 0
}

// sessionAlive asks for a turn wider than the session's scope: the gate
// loads the session (session_forbidden when it is gone) and then refuses
// the scope (forbidden_scope) without touching or rewriting the session.
func sessionAlive(t *testing.T, g *gate, caller map[string]string, id, token string) bool {
	r := g.post("/answer/sessions/"+id+"/turns", withSession(caller, token), `{"question":"q","scope":{"paths":["publish/system/components/kunora-gateway"]}}`)
	switch code := r.errorCode(t); code {
	case "forbidden_scope":
		return true
	case "session_forbidden":
		return false
	default:
		t.Fatalf("probe turn: %d %s", r.Status, r.Body)
		return false
	}
}

// fill creates n empty sessions of caller, four at a time. It may run
// outside the test goroutine, so it reports failures with t.Error.
func fill(t *testing.T, g *gate, caller map[string]string, n int) {
	var wg sync.WaitGroup
	var next atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				req, _ := http.NewRequest(http.MethodPost, g.url+"/answer/sessions", strings.NewReader(`{}`))
				for k, v := range caller {
					req.Header.Set(k, v)
				}
				resp, err := g.client.Do(req)
				if err != nil {
					t.Errorf("filling the store: %v", err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Errorf("filling the store: %d", resp.StatusCode)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestTrimmedTurnsCitationSummary: with max_turns 1, the second turn trims
// the first. Its citations come back as citationSummary, and generation of
// the follow-up is told which pages they were.
func TestTrimmedTurnsCitationSummary(t *testing.T) {
	g, tap := startTappedGate(t, "max_turns 1")
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	r := g.post("/answer/sessions", coding, `{"question":"How do I use Redis as the agent memory store?"}`)
	created := r.json(t)
	first := created["firstAnswer"].(map[string]any)
	cited := first["citations"].([]any)
	if r.Status != 200 || len(cited) == 0 {
		t.Fatalf("first answer without citations: %d %s", r.Status, r.Body)
	}
	if _, ok := first["citationSummary"]; ok {
		t.Errorf("a first answer has a citation summary: %s", r.Body)
	}
	id, token := created["sessionId"].(string), created["sessionToken"].(string)
	turn := func(q string) map[string]any {
		r := g.post("/answer/sessions/"+id+"/turns", withSession(coding, token), `{"question":"`+q+`"}`)
		if r.Status != 200 {
			t.Fatalf("turn %q: %d %s", q, r.Status, r.Body)
		}
		return r.json(t)
	}
	second := turn("How do I configure agent memory?")
	summary, _ := second["citationSummary"].([]any)
	if len(summary) == 0 {
		t.Fatalf("the second turn trimmed the first but returned no citationSummary: %v", second)
	}
	if !sameChunks(summary, cited) {
		t.Errorf("citationSummary %v is not the trimmed turn's citations %v", summary, cited)
	}
	turn("And what does it cost?")
	prompt := tap.lastPrompt()
	for _, c := range cited {
		path := c.(map[string]any)["path"].(string)
		if !strings.Contains(prompt, "Earlier in this conversation") || !strings.Contains(prompt, path) {
			t.Fatalf("generation of a follow-up was not told the trimmed turn cited %s:\n%s", path, prompt)
		}
	}
}

func sameChunks(a, b []any) bool {
	ids := map[any]bool{}
	for _, c := range b {
		ids[c.(map[string]any)["chunkId"]] = true
	}
	for _, c := range a {
		if !ids[c.(map[string]any)["chunkId"]] {
			return false
		}
	}
	return len(a) > 0
}
