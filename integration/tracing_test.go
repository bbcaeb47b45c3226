package integration

import (
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP trace receiver (POST /v1/traces, protobuf)
// that keeps every span it is sent.
type otlpReceiver struct {
	url   string
	mu    sync.Mutex
	spans []*tracepb.Span
}

func startOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rc := &otlpReceiver{url: "http://" + ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(rc.serve), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return rc
}

func (rc *otlpReceiver) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want POST /v1/traces application/x-protobuf", http.StatusBadRequest)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	raw, err := io.ReadAll(body)
	var req coltrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(raw, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			rc.spans = append(rc.spans, ss.Spans...)
		}
	}
	rc.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// waitSpans returns the spans of traceID once one named last has arrived
// (the call's own span ends after all its stages), or fails after 10 s.
func (rc *otlpReceiver) waitSpans(t *testing.T, traceID, last string) []*tracepb.Span {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		rc.mu.Lock()
		var got []*tracepb.Span
		done := false
		for _, s := range rc.spans {
			if hex.EncodeToString(s.TraceId) == traceID {
				got = append(got, s)
				done = done || s.Name == last
			}
		}
		rc.mu.Unlock()
		if done {
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no span %q of trace %s reached the receiver in 10s", last, traceID)
	return nil
}

func spanNamed(spans []*tracepb.Span, name string) *tracepb.Span {
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	return nil
}

func spanAttr(s *tracepb.Span, key string) *commonpb.AnyValue {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

// TestTracingExportsGenAISpansAndPropagatesTraceparent: with
// OTEL_EXPORTER_OTLP_ENDPOINT naming a receiver, an ask whose caller sent
// a W3C traceparent is exported as one trace under the caller's span:
// the call's span with what its stages found as attributes (authenticate,
// tool gate, decide with the policy revision, response check,
// verification with its counts), the retrieval, and the model call with
// the GenAI attributes; and
// RAGFlow receives a traceparent of the same trace (its request log); the
// audit record names the trace. No question text is in any span without
// log_questions.
func TestTracingExportsGenAISpansAndPropagatesTraceparent(t *testing.T) {
	rc := startOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.url)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	auditFile := filepath.Join(t.TempDir(), "audit.log")
	g := startGate(t, gateOptions{globalExtra: "log audit {\n\t\toutput file " + auditFile + "\n\t\tinclude http.handlers.wikigate.audit\n\t}"})

	const traceID, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	question := "How do I configure agent memory with Redis?"
	h := bearer(agentToken(t, "kunora-coding-agent"))
	h["Traceparent"] = "00-" + traceID + "-" + callerSpan + "-01"
	r := g.post("/agent/tools/ask", h, `{"question":"`+question+`"}`)
	if r.Status != 200 {
		t.Fatalf("ask: %d %s", r.Status, r.Body)
	}

	spans := rc.waitSpans(t, traceID, "POST /agent/tools/ask")
	server := spanNamed(spans, "POST /agent/tools/ask")
	if hex.EncodeToString(server.ParentSpanId) != callerSpan || server.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("the call's span has parent %x kind %v, want the caller's span %s, server", server.ParentSpanId, server.Kind, callerSpan)
	}
	if got := spanNames(spans); len(got) != 3 || spanNamed(spans, "retrieval ragflow") == nil {
		t.Errorf("spans %v, want the call's, the retrieval's and the model call's (the stages are the call span's attributes)", got)
	}
	if spanAttr(server, "wikigate.policy.revision").GetStringValue() == "" || !spanAttr(server, "wikigate.decision.allow").GetBoolValue() || !spanAttr(server, "wikigate.tool_gate.allow").GetBoolValue() {
		t.Errorf("the call's span lacks the decision, the tool gate's answer or the revision: %v", server.Attributes)
	}
	if spanAttr(server, "wikigate.caller.type").GetStringValue() != "agent" || spanAttr(server, "wikigate.citations").GetIntValue() == 0 || spanAttr(server, "wikigate.chunks.kept").GetIntValue() == 0 {
		t.Errorf("the call's span lacks the authenticate, response check or verify stage's findings: %v", server.Attributes)
	}
	chat := spanNamed(spans, "chat ragflow-default")
	if chat == nil {
		t.Fatalf("no model call span; spans: %v", spanNames(spans))
	}
	want := map[string]string{"gen_ai.operation.name": "chat", "gen_ai.request.model": "ragflow-default", "gen_ai.provider.name": "ragflow"}
	for k, v := range want {
		if got := spanAttr(chat, k).GetStringValue(); got != v {
			t.Errorf("model call span %s = %q, want %q", k, got, v)
		}
	}
	if spanAttr(chat, "gen_ai.usage.input_tokens").GetIntValue() <= 0 || spanAttr(chat, "gen_ai.usage.output_tokens").GetIntValue() <= 0 {
		t.Errorf("model call span without its token counts: %v", chat.Attributes)
	}
	if fr := spanAttr(chat, "gen_ai.response.finish_reasons").GetArrayValue(); len(fr.GetValues()) != 1 || fr.Values[0].GetStringValue() != "stop" {
		t.Errorf("finish reasons %v, want [stop]", fr)
	}
	for _, s := range spans {
		for _, kv := range s.Attributes {
			if strings.Contains(kv.Value.String(), "agent memory") {
				t.Errorf("span %s attribute %s holds the question without log_questions", s.Name, kv.Key)
			}
		}
	}

	sent := ragflowTraceparents(t, g)
	if len(sent) < 2 {
		t.Fatalf("RAGFlow logged %d requests with a traceparent, want retrieval and completion: %v", len(sent), sent)
	}
	for path, tp := range sent {
		parts := strings.Split(tp, "-")
		if len(parts) != 4 || parts[1] != traceID || parts[2] == callerSpan {
			t.Errorf("RAGFlow %s got traceparent %q, want trace %s under a gate span", path, tp, traceID)
		}
	}
	if rec := auditRecord(t, auditFile, r.Header.Get("X-Request-Id")); rec["trace_id"] != traceID {
		t.Errorf("audit record trace_id = %v, want %s", rec["trace_id"], traceID)
	}
}

// ragflowTraceparents is the traceparent of each request the development
// RAGFlow logged, by path.
func ragflowTraceparents(t *testing.T, g *gate) map[string]string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, g.ragURL+"/_dev/requests", nil)
	req.Header.Set("Authorization", "Bearer "+ragflowKey)
	r := g.do(req)
	var log struct {
		Requests []struct {
			Path        string `json:"path"`
			Traceparent string `json:"traceparent"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(r.Body, &log); err != nil {
		t.Fatalf("request log: %v %s", err, r.Body)
	}
	out := map[string]string{}
	for _, rq := range log.Requests {
		if rq.Traceparent != "" {
			out[rq.Path] = rq.Traceparent
		}
	}
	return out
}

func spanNames(spans []*tracepb.Span) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name
	}
	return out
}
