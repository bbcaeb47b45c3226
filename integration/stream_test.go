package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gateEvent is one event as a client reads it; a comment line is an event
// named ":" with the comment as data.
type gateEvent struct {
	name, id, data string
}

// readEvents reads events until done (or the body ends), handing each to
// seen when set; seen returning false stops reading.
func readEvents(t *testing.T, body io.Reader, seen func(gateEvent) bool) []gateEvent {
	t.Helper()
	var out []gateEvent
	var cur gateEvent
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, ":"):
			out = append(out, gateEvent{name: ":", data: strings.TrimSpace(line[1:])})
		case strings.HasPrefix(line, "event: "):
			cur.name = line[len("event: "):]
		case strings.HasPrefix(line, "id: "):
			cur.id = line[len("id: "):]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[len("data: "):]
		case line == "" && cur.name != "":
			out = append(out, cur)
			if (seen != nil && !seen(cur)) || cur.name == "done" {
				return out
			}
			cur = gateEvent{}
		}
	}
	return out
}

// streamAsk posts body asking for an event stream.
func (g *gate) streamAsk(ctx context.Context, path string, headers map[string]string, body string) *http.Response {
	g.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.url+path, strings.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		g.t.Fatalf("stream %s: %v", path, err)
	}
	return resp
}

func decodeEvent(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("event data is not JSON: %s", s)
	}
	return m
}

// withoutRequestID drops what differs between two calls of one question.
func withoutRequestID(m map[string]any) map[string]any {
	if a, ok := m["audit"].(map[string]any); ok {
		delete(a, "requestId")
	}
	return m
}

var deltaRef = regexp.MustCompile(`\[(\d+)\]`)

// checkSequence asserts the protocol's order and returns the result: ids
// 1..n, status events first (retrieving, in_scope, generating when there
// is something to generate from), deltas and citations, the final
// citations, result, done. Every [n] of a delta names a citation already
// announced and one of the result's.
func checkSequence(t *testing.T, evs []gateEvent) (result map[string]any, deltas string) {
	t.Helper()
	checkStreamEvents(t, evs) // openapi_validate_test.go
	var names []string
	announced := 0
	for i, ev := range evs {
		if ev.id != strconv.Itoa(i+1) {
			t.Fatalf("event %d has id %q: %v", i, ev.id, evs)
		}
		names = append(names, ev.name)
		d := decodeEvent(t, ev.data)
		switch ev.name {
		case "citations":
			announced = len(d["citations"].([]any))
		case "delta":
			text := d["text"].(string)
			for _, m := range deltaRef.FindAllStringSubmatch(text, -1) {
				if n, _ := strconv.Atoi(m[1]); n < 1 || n > announced {
					t.Errorf("delta %q cites [%d] with %d citations announced", text, n, announced)
				}
			}
			deltas += text
		case "result":
			result = d
		}
	}
	seq := strings.Join(names, " ")
	if !regexp.MustCompile(`^status status( status)?( (citations|delta))* citations( delta)? result done$`).MatchString(seq) {
		t.Fatalf("event sequence: %s", seq)
	}
	if st := decodeEvent(t, evs[0].data)["stage"]; st != "retrieving" {
		t.Errorf("first status %v", st)
	}
	final := decodeEvent(t, evs[lastCitations(evs)].data)
	if final["final"] != true || !reflect.DeepEqual(final["citations"], result["citations"]) {
		t.Errorf("final citations event %v differs from the result's %v", final, result["citations"])
	}
	return result, deltas
}

// lastCitations is the index of the last citations event.
func lastCitations(evs []gateEvent) int {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].name == "citations" {
			return i
		}
	}
	return 0
}

func TestStreamAnswerEqualsJSON(t *testing.T) {
	g := startGate(t, gateOptions{})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	cases := []struct{ name, path, body string }{
		{"answered", "/agent/tools/ask", `{"question":"How do I use Redis as the agent memory store?"}`},
		{"no answer", "/agent/tools/ask", `{"question":"What is the payroll schedule for contractors?"}`},
		{"person", "/answer/ask", `{"question":"How do I configure agent memory?","page":{"url":"/system/components/kunora-kgent/"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			headers := tok
			if tc.path == "/answer/ask" {
				headers = nil
			}
			want := withoutRequestID(g.post(tc.path, headers, tc.body).json(t))
			resp := g.streamAsk(t.Context(), tc.path, headers, tc.body)
			defer resp.Body.Close()
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("stream answered %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			result, deltas := checkSequence(t, readEvents(t, resp.Body, nil))
			if got := withoutRequestID(result); !reflect.DeepEqual(got, want) {
				t.Fatalf("result event differs from the JSON route:\n got %v\nwant %v", got, want)
			}
			if result["noAnswerReason"] != nil {
				if deltas != "" {
					t.Logf("provisional deltas before a no-answer: %q", deltas)
				}
				return
			}
			if deltas != result["answer"] {
				t.Errorf("deltas %q do not add up to the answer %q", deltas, result["answer"])
			}
		})
	}
}

func TestStreamSessionTurn(t *testing.T) {
	g := startGate(t, gateOptions{})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	created := g.post("/answer/sessions", tok, `{"question":"How do I configure agent memory?"}`).json(t)
	headers := map[string]string{"Authorization": tok["Authorization"], "X-Session-Token": created["sessionToken"].(string)}
	resp := g.streamAsk(t.Context(), "/answer/sessions/"+created["sessionId"].(string)+"/turns", headers, `{"question":"And with Redis?"}`)
	defer resp.Body.Close()
	result, _ := checkSequence(t, readEvents(t, resp.Body, nil))
	if result["audit"].(map[string]any)["sessionId"] != created["sessionId"] || result["answer"] == "" {
		t.Fatalf("turn result: %v", result)
	}
}

// inScopeRetrieval is one approved chunk of the agent's grant.
var inScopeRetrieval = writeString(`{"code":0,"data":{"chunks":[` + chunkJSON("in", kgentMainApproved, kgentPath+"/memory.md", "kunora-kgent", "main", "approved", "Agent memory uses a sliding window of recent turns.") + `],"doc_aggs":[],"total":1}}`)

// sseAnswer writes one RAGFlow delta event.
func sseAnswer(w http.ResponseWriter, text string) error {
	b, _ := json.Marshal(map[string]any{"code": 0, "message": "", "data": map[string]any{"answer": text, "reference": map[string]any{}, "final": false}})
	if _, err := fmt.Fprintf(w, "data:%s\n\n", b); err != nil {
		return err
	}
	w.(http.Flusher).Flush()
	return nil
}

func TestStreamKeepAliveWhileRAGFlowIsSilent(t *testing.T) {
	answer := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		time.Sleep(1500 * time.Millisecond) // the model thinks
		_ = sseAnswer(w, "Agent memory uses a sliding window [ID:0].")
		_, _ = io.WriteString(w, "data:{\"code\":0,\"message\":\"\",\"data\":true}\n\n")
	}
	g := startGate(t, gateOptions{ragflowURL: fakeRAGFlow(t, inScopeRetrieval, answer), extraOptions: "streaming {\n keep_alive 200ms\n}"})
	resp := g.streamAsk(t.Context(), "/agent/tools/ask", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`)
	defer resp.Body.Close()
	evs := readEvents(t, resp.Body, nil)
	var names []string
	var events []gateEvent
	for _, ev := range evs {
		names = append(names, ev.name)
		if ev.name == ":" {
			if ev.data != "keep-alive" {
				t.Errorf("comment %q", ev.data)
			}
			continue
		}
		events = append(events, ev)
	}
	seq := strings.Join(names, " ")
	if !regexp.MustCompile(`^status status status : (: )*(citations )?delta`).MatchString(seq) {
		t.Fatalf("want keep-alive comments between generating and the first delta: %s", seq)
	}
	result, _ := checkSequence(t, events)
	if result["answer"] != "Agent memory uses a sliding window [1]." {
		t.Errorf("answer after the silence: %v", result["answer"])
	}
}

// slowRAGFlow streams supported sentences until its caller hangs up, and
// reports that it saw the hang-up.
func slowRAGFlow(t *testing.T, cancelled chan<- struct{}) string {
	return stallingRAGFlow(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/api/v1/retrieval":
			w.Header().Set("Content-Type", "application/json")
			inScopeRetrieval(w)
		case "/api/v1/chat/completions":
			w.Header().Set("Content-Type", "text/event-stream")
			for {
				if sseAnswer(w, "Agent memory uses a sliding window [ID:0]. ") != nil {
					break
				}
				select {
				case <-r.Context().Done():
					cancelled <- struct{}{}
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
			cancelled <- struct{}{}
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	})
}

func TestStreamClientGoneCancelsRAGFlow(t *testing.T) {
	cancelled := make(chan struct{}, 1)
	g, logFile := loggedGate(t, gateOptions{ragflowURL: slowRAGFlow(t, cancelled), ragflowExtra: "idle_timeout 10s"})
	before := callCounts(t, g)
	ctx, cancel := context.WithCancel(t.Context())
	resp := g.streamAsk(ctx, "/agent/tools/ask", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`)
	evs := readEvents(t, resp.Body, func(ev gateEvent) bool { return ev.name != "delta" })
	if evs[len(evs)-1].name != "delta" {
		t.Fatalf("no delta before the end: %v", evs)
	}
	cancel() // the reader leaves mid-answer
	resp.Body.Close()
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("RAGFlow's generation was not cancelled when the client left")
	}
	rec := waitAuditRecord(t, logFile, func(l map[string]any) bool { return l["endpoint"] == "/agent/tools/ask" })
	if rec["result"] != "client_closed" || rec["status"] != float64(499) {
		t.Errorf("audit record of a reader gone mid-stream: %v", rec)
	}
	waitFor(t, "a client_closed ask in the metrics", func() bool {
		return callCounts(t, g)["client_closed"] == before["client_closed"]+1
	})
	records := 0
	for _, l := range gateLogLines(t, logFile) {
		if l["logger"] == "http.handlers.wikigate.audit" && l["endpoint"] == "/agent/tools/ask" {
			records++
		}
	}
	if records != 1 {
		t.Errorf("%d audit records for one streamed call", records)
	}
}

func TestStreamOpenLimit(t *testing.T) {
	cancelled := make(chan struct{}, 4)
	g := startGate(t, gateOptions{ragflowURL: slowRAGFlow(t, cancelled), ragflowExtra: "idle_timeout 10s",
		extraOptions: "streaming {\n max_per_caller 1\n retry_after 7s\n}"})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	first := g.streamAsk(ctx, "/agent/tools/ask", tok, `{"question":"agent memory"}`)
	defer first.Body.Close()
	readEvents(t, first.Body, func(ev gateEvent) bool { return ev.name != "delta" }) // open and streaming

	second := g.streamAsk(t.Context(), "/agent/tools/ask", tok, `{"question":"agent memory"}`)
	body, _ := io.ReadAll(second.Body)
	second.Body.Close()
	r := response{Status: second.StatusCode, Header: second.Header, Body: body}
	if r.Status != 429 || r.errorCode(t) != "rate_limited" || r.Header.Get("Retry-After") != "7" {
		t.Fatalf("a second open stream: %d %v %s", r.Status, r.Header, body)
	}
	// JSON calls of the same caller are not streams: they are not limited.
	if j := g.post("/agent/tools/search", tok, `{"question":"agent memory"}`); j.Status != 200 {
		t.Fatalf("a JSON call beside the stream: %d %s", j.Status, j.Body)
	}
	cancel()
	<-cancelled
	waitFor(t, "the slot to be given back", func() bool {
		resp := g.streamAsk(t.Context(), "/agent/tools/ask", tok, `{"question":"agent memory"}`)
		defer resp.Body.Close()
		return resp.StatusCode == 200
	})
}

// streaming { max_open 1 }: while one caller's stream is open, another
// caller (within their own limit) is refused 429 naming the gate's limit;
// once the first ends, the other may stream.
func TestStreamOpenLimitPerProcess(t *testing.T) {
	cancelled := make(chan struct{}, 4)
	g := startGate(t, gateOptions{ragflowURL: slowRAGFlow(t, cancelled), ragflowExtra: "idle_timeout 10s",
		extraOptions: "streaming {\n max_open 1\n retry_after 2s\n}"})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	first := g.streamAsk(ctx, "/agent/tools/ask", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`)
	defer first.Body.Close()
	readEvents(t, first.Body, func(ev gateEvent) bool { return ev.name != "delta" }) // open and streaming

	other := bearer(agentToken(t, "docs-maintainer-agent"))
	second := g.streamAsk(t.Context(), "/agent/tools/ask", other, `{"question":"agent memory"}`)
	body, _ := io.ReadAll(second.Body)
	second.Body.Close()
	r := response{Status: second.StatusCode, Header: second.Header, Body: body}
	if r.Status != 429 || r.errorCode(t) != "rate_limited" || r.Header.Get("Retry-After") != "2" ||
		!strings.Contains(string(body), "this gate holds its maximum of open answer streams") {
		t.Fatalf("another caller's stream on a full gate: %d %v %s", r.Status, r.Header, body)
	}
	cancel()
	<-cancelled
	waitFor(t, "the gate's slot to be given back", func() bool {
		resp := g.streamAsk(t.Context(), "/agent/tools/ask", other, `{"question":"agent memory"}`)
		defer resp.Body.Close()
		return resp.StatusCode == 200
	})
}

func TestStreamDeniedIsJSONAndReachesNoBackend(t *testing.T) {
	g := startGate(t, gateOptions{})
	before := g.backendRequests(g.ragURL, ragflowKey)
	resp := g.streamAsk(t.Context(), "/agent/tools/ask", bearer(agentToken(t, "kunora-coding-agent")),
		`{"question":"gateway routes","scope":{"projects":["kunora-gateway"]}}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	r := response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	if r.Status != 403 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || r.errorCode(t) != "forbidden_scope" {
		t.Fatalf("denied stream: %d %s %s", r.Status, r.Header.Get("Content-Type"), body)
	}
	if after := g.backendRequests(g.ragURL, ragflowKey); after != before {
		t.Fatalf("a denied call reached RAGFlow: %d requests before, %d after", before, after)
	}
}
