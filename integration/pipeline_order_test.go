package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// firstAnswer writes head (request line and headers, no blank line) and
// then partial of a body the headers announce as longer, and returns the
// first response the gate sends: a 100 Continue when it is about to read
// the body, else its final answer. The body is never completed, so a
// final answer proves the gate answered without reading it.
func firstAnswer(t *testing.T, g *gate, head, partial string) *http.Response {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(g.url, "http://"), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, head+"\r\n\r\n"+partial); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer before the body was complete: %v", err)
	}
	return resp
}

func postHead(path string, headers ...string) string {
	return strings.Join(append([]string{"POST " + path + " HTTP/1.1", "Host: gate", "Content-Type: application/json", "Content-Length: 1000"}, headers...), "\r\n")
}

// TestNoCredentialIsRefusedBeforeTheBody: without a valid credential the
// gate answers 401 without reading the body, and never sends 100 Continue.
func TestNoCredentialIsRefusedBeforeTheBody(t *testing.T) {
	g := startGate(t, gateOptions{})
	tok := agentToken(t, "kunora-coding-agent")
	refused := map[string]string{
		"no credential, 100-continue":   postHead("/agent/tools/search", "Expect: 100-continue"),
		"bad token, 100-continue":       postHead("/agent/tools/search", "Expect: 100-continue", "Authorization: Bearer not.a.token"),
		"bad API key, 100-continue":     postHead("/agent/tools/ask", "Expect: 100-continue", "X-Agent-Api-Key: wg_nope"),
		"no credential, body cut short": postHead("/agent/tools/get_page"),
		"bad SSO token on /answer/ask":  postHead("/answer/ask", "Expect: 100-continue", "Authorization: Bearer not.a.token"),
	}
	for name, head := range refused {
		resp := firstAnswer(t, g, head, `{"question":"agent`)
		if resp.StatusCode != 401 {
			t.Errorf("%s: first answer %d, want 401", name, resp.StatusCode)
		}
	}
	// With a credential (or anonymously on a public answer route) the body
	// is needed, so the gate asks for it.
	welcome := map[string]string{
		"agent token":      postHead("/agent/tools/search", "Expect: 100-continue", "Authorization: Bearer "+tok),
		"anonymous answer": postHead("/answer/ask", "Expect: 100-continue"),
	}
	for name, head := range welcome {
		if resp := firstAnswer(t, g, head, ""); resp.StatusCode != 100 {
			t.Errorf("%s: first answer %d, want 100 Continue", name, resp.StatusCode)
		}
	}
	big := `{"question":"` + strings.Repeat("a", 70<<10) + `"}`
	if r := g.post("/answer/ask", nil, big); r.Status != 413 || r.errorCode(t) != "payload_too_large" {
		t.Fatalf("anonymous oversized body: %d %s", r.Status, r.Body)
	}
}

// TestToolIsCheckedBeforeTheBody: a caller whose policy does not grant the
// tool gets forbidden_tool whatever its body is, so it cannot learn the
// tool's body schema; a caller with the tool gets the schema error.
func TestToolIsCheckedBeforeTheBody(t *testing.T) {
	g := startGate(t, gateOptions{})
	readOnly := bearer(agentToken(t, "ops-readonly-agent"))
	coding := bearer(agentToken(t, "kunora-coding-agent"))
	bodies := []string{`{"question":`, `{"bogus":1}`, `{"maxTokens":"many"}`, `[]`, ``, `{"question":"a","question":"b"}`}
	for _, body := range bodies {
		if r := g.post("/agent/tools/get_context", readOnly, body); r.Status != 403 || r.errorCode(t) != "forbidden_tool" {
			t.Errorf("get_context without the tool, body %q: %d %s", body, r.Status, r.Body)
		}
		if r := g.post("/agent/tools/create_improvement_task", coding, body); r.Status != 403 || r.errorCode(t) != "forbidden_tool" {
			t.Errorf("create_improvement_task without the tool, body %q: %d %s", body, r.Status, r.Body)
		}
		if r := g.post("/agent/tools/get_context", coding, body); r.Status != 400 || r.errorCode(t) != "invalid_request" {
			t.Errorf("get_context with the tool, body %q: %d %s", body, r.Status, r.Body)
		}
	}
}

// TestInvalidCallerTypeIsInvalidRequest: a caller.type that is neither
// agent nor human is a malformed body; a valid one naming someone else is
// refused as not the authenticated caller.
func TestInvalidCallerTypeIsInvalidRequest(t *testing.T) {
	g := startGate(t, gateOptions{})
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	r := g.post("/agent/tools/search", tok, `{"question":"agent memory","caller":{"type":"robot"}}`)
	if r.Status != 400 || r.errorCode(t) != "invalid_request" || !strings.Contains(errorMessage(t, r), "caller.type") {
		t.Fatalf("invalid caller.type: %d %s", r.Status, r.Body)
	}
	r = g.post("/agent/tools/search", tok, `{"question":"agent memory","caller":{"type":"human"}}`)
	if r.Status != 401 || r.errorCode(t) != "unauthorized" {
		t.Fatalf("caller.type of someone else: %d %s", r.Status, r.Body)
	}
}

// loggedGate is a gate whose logs (audit records included) go to a file
// the test reads, with Caddy's metrics served at /metrics.
func loggedGate(t *testing.T, o gateOptions) (*gate, string) {
	t.Helper()
	logFile := filepath.Join(t.TempDir(), "gate.log")
	o.siteExtra += "\n\tmetrics /metrics"
	g := startGate(t, o)
	discard := "log {\n\t\toutput discard\n\t}"
	if !strings.Contains(g.config, discard) {
		t.Fatal("the test Caddyfile no longer discards its log; update loggedGate")
	}
	g.config = strings.Replace(g.config, discard, fmt.Sprintf("log {\n\t\toutput file %s\n\t\tformat json\n\t\tlevel DEBUG\n\t}", logFile), 1)
	g.reload()
	return g, logFile
}

// gateLogLines are the JSON log lines written so far.
func gateLogLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var lines []map[string]any
	for _, l := range strings.Split(string(b), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			lines = append(lines, m)
		}
	}
	return lines
}

// waitAuditRecord waits for the audit record matching match.
func waitAuditRecord(t *testing.T, path string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	var found map[string]any
	waitFor(t, "the audit record", func() bool {
		for _, l := range gateLogLines(t, path) {
			if l["logger"] == "http.handlers.wikigate.audit" && match(l) {
				found = l
				return true
			}
		}
		return false
	})
	return found
}

// TestUnknownRoutesAndMethodsAreAudited: probes of paths that are no route
// and methods a route does not take are answered and audited, without a
// credential and without reading a body.
func TestUnknownRoutesAndMethodsAreAudited(t *testing.T) {
	g, logFile := loggedGate(t, gateOptions{})
	r := g.post("/agent/tools/delete_everything", nil, `{"question":"x"}`)
	if r.Status != 404 || r.errorCode(t) != "not_found" {
		t.Fatalf("unknown route: %d %s", r.Status, r.Body)
	}
	id := r.Header.Get("X-Request-Id")
	rec := waitAuditRecord(t, logFile, func(l map[string]any) bool { return l["request_id"] == id })
	if rec["endpoint"] != "/agent/tools/delete_everything" || rec["result"] != "not_found" || rec["status"] != float64(404) {
		t.Errorf("unknown route record: %v", rec)
	}
	req, _ := http.NewRequest("PROPFIND", g.url+"/agent/tools/search", nil)
	r = g.do(req)
	if r.Status != 405 || r.errorCode(t) != "method_not_allowed" {
		t.Fatalf("unknown method: %d %s", r.Status, r.Body)
	}
	id = r.Header.Get("X-Request-Id")
	rec = waitAuditRecord(t, logFile, func(l map[string]any) bool { return l["request_id"] == id })
	if rec["endpoint"] != "/agent/tools/search" || rec["result"] != "method_not_allowed" || rec["status"] != float64(405) {
		t.Errorf("unknown method record: %v", rec)
	}
}

// TestClientHangUpIsAClientCancel: a caller that disconnects while RAGFlow
// is working is recorded as a client cancel (result client_closed, status
// 499, its own metric label, an info-level log), never as
// ragflow_unavailable or internal, and nothing is logged at error level.
func TestClientHangUpIsAClientCancel(t *testing.T) {
	started := make(chan struct{}, 1)
	rag := stallingRAGFlow(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/retrieval" {
			w.WriteHeader(http.StatusNotFound) // health probes
			return
		}
		select {
		case started <- struct{}{}:
		default:
		}
		select { // stall until the gate gives up on the call
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	})
	g, logFile := loggedGate(t, gateOptions{ragflowURL: rag})
	before := callCounts(t, g)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.url+"/agent/tools/ask", strings.NewReader(`{"question":"agent memory"}`))
	req.Header.Set("Authorization", "Bearer "+agentToken(t, "kunora-coding-agent"))
	if _, err := g.client.Do(req); err == nil {
		t.Fatal("the call was answered; the hang-up was not tested")
	}
	rec := waitAuditRecord(t, logFile, func(l map[string]any) bool { return l["endpoint"] == "/agent/tools/ask" })
	if rec["result"] != "client_closed" || rec["status"] != float64(499) {
		t.Errorf("audit record of a hang-up: %v", rec)
	}
	waitFor(t, "the info-level hang-up log", func() bool {
		for _, l := range gateLogLines(t, logFile) {
			if l["level"] == "info" && strings.Contains(fmt.Sprint(l["msg"]), "caller closed the connection") {
				return true
			}
		}
		return false
	})
	for _, l := range gateLogLines(t, logFile) {
		if l["level"] == "error" && strings.HasPrefix(fmt.Sprint(l["logger"]), "http.handlers.wikigate") {
			t.Errorf("error-level log for a hang-up: %v", l)
		}
	}
	after := callCounts(t, g)
	if after["client_closed"] != before["client_closed"]+1 {
		t.Errorf("client_closed ask calls went from %v to %v, want one more", before["client_closed"], after["client_closed"])
	}
	for _, failure := range []string{"ragflow_unavailable", "internal", "policy_unavailable"} {
		if after[failure] != before[failure] {
			t.Errorf("the hang-up was counted as %s", failure)
		}
	}
}

// callCounts reads caddy_wikigate_calls_total for tool ask by result (the
// collectors live as long as the process, so tests compare differences).
func callCounts(t *testing.T, g *gate) map[string]float64 {
	t.Helper()
	r := g.do(newGet(t, g.url+"/metrics"))
	counts := map[string]float64{}
	for _, l := range strings.Split(string(r.Body), "\n") {
		rest, ok := strings.CutPrefix(l, `caddy_wikigate_calls_total{result="`)
		if !ok || !strings.Contains(rest, `",tool="ask"} `) {
			continue
		}
		result, value, _ := strings.Cut(rest, `",tool="ask"} `)
		var v float64
		_, _ = fmt.Sscan(value, &v)
		counts[result] = v
	}
	if len(counts) == 0 && !strings.Contains(string(r.Body), "# HELP") {
		t.Fatalf("no metrics at /metrics: %d %s", r.Status, r.Body)
	}
	return counts
}

// stallingRAGFlow is a RAGFlow whose every call is handle.
func stallingRAGFlow(t *testing.T, handle http.HandlerFunc) string {
	srv := httptest.NewServer(handle)
	t.Cleanup(srv.Close)
	return srv.URL
}

func newGet(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
