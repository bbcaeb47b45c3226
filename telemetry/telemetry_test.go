package telemetry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestOnlyANamedExporterTurnsTracingOn(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		on   bool
		err  bool
	}{
		{"nothing set", nil, false, false},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true, false},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true, false},
		{"exporter otlp", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, false},
		{"exporter none wins over an endpoint", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x"}, false, false},
		{"sdk disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, false, false},
		{"unknown exporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false, true},
		{"unknown protocol", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(context.Background(), Options{Getenv: env(c.env)})
			if (err != nil) != c.err || p.Enabled() != c.on {
				t.Fatalf("New: enabled %v err %v; want enabled %v, error %v", p.Enabled(), err, c.on, c.err)
			}
			if c.err && !strings.Contains(err.Error(), "OTEL_") {
				t.Errorf("error %q does not name the variable", err)
			}
			_ = p.Shutdown(context.Background())
		})
	}
}

// recorder is a Provider exporting to memory.
func recorder(t *testing.T, recordText bool) (*Provider, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	p, err := New(context.Background(), Options{Exporter: exp, RecordText: recordText})
	if err != nil || p == nil {
		t.Fatalf("New with an exporter: %v", err)
	}
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return p, exp
}

func flushed(t *testing.T, p *Provider, exp *tracetest.InMemoryExporter) tracetest.SpanStubs {
	t.Helper()
	if err := p.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return exp.GetSpans()
}

func TestServerSpanContinuesTheCallersTraceAndBackendsGetIt(t *testing.T) {
	p, exp := recorder(t, false)
	var got http.Header
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() }))
	defer backend.Close()
	client := &http.Client{Transport: Transport(http.DefaultTransport)}

	in := http.Header{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}
	ctx, call := p.StartServer(context.Background(), in, "POST /agent/tools/ask")
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, backend.URL+"/api/v1/retrieval", nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	call.End()
	if req.Header.Get("Traceparent") != "" {
		t.Error("the transport wrote into the caller's request")
	}

	spans := flushed(t, p, exp)
	if len(spans) != 2 {
		t.Fatalf("%d spans, want the call and the backend request", len(spans))
	}
	client0, server := spans[0], spans[1]
	if server.Parent.SpanID().String() != "00f067aa0ba902b7" || server.SpanContext.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("call span parent %v trace %v, want the caller's", server.Parent.SpanID(), server.SpanContext.TraceID())
	}
	if client0.SpanKind != trace.SpanKindClient || client0.Parent.SpanID() != server.SpanContext.SpanID() {
		t.Errorf("backend span kind %v parent %v, want a client span under the call", client0.SpanKind, client0.Parent.SpanID())
	}
	want := "00-4bf92f3577b34da6a3ce929d0e0e4736-" + client0.SpanContext.SpanID().String() + "-01"
	if tp := got.Get("Traceparent"); tp != want {
		t.Errorf("backend received traceparent %q, want %q", tp, want)
	}
	if v := attr(client0.Attributes, "http.response.status_code"); v.AsInt64() != 200 {
		t.Errorf("backend span status %v", v.String())
	}
}

func TestOffTouchesNothing(t *testing.T) {
	var p *Provider
	var got http.Header
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() }))
	defer backend.Close()
	in := http.Header{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}
	ctx := context.Background()
	ctx2, s := p.StartServer(ctx, in, "POST /agent/tools/ask")
	if ctx2 != ctx || s.Recording() || s.TraceID() != "" {
		t.Fatal("a nil Provider started a span or changed the context")
	}
	req, _ := http.NewRequestWithContext(ctx2, http.MethodGet, backend.URL, nil)
	resp, err := (&http.Client{Transport: Transport(http.DefaultTransport)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got.Get("Traceparent") != "" {
		t.Errorf("tracing off, the backend still got traceparent %q", got.Get("Traceparent"))
	}
	s.Set(attribute.Int("x", 1))
	s.Fail(errors.New("x"), "")
	s.End()
	EndCallAs(s, "", "", 500, "internal")
}

func TestGenerationSpanFollowsGenAIConventionsAndKeepsTextOut(t *testing.T) {
	for _, optIn := range []bool{false, true} {
		p, exp := recorder(t, optIn)
		ctx, call := p.StartServer(context.Background(), nil, "POST /agent/tools/ask")
		gctx, gen := StartGeneration(ctx, 1)
		p.SetText(gctx, "what is agent memory?", "It is a store [1].")
		EndGeneration(gen, Usage{InputTokens: 120, OutputTokens: 30, FinishReasons: []string{"stop"}}, nil)
		call.End()
		s := flushed(t, p, exp)[0]
		if s.Name != "chat ragflow-default" || s.SpanKind != trace.SpanKindClient {
			t.Fatalf("span %q kind %v", s.Name, s.SpanKind)
		}
		for k, v := range map[string]string{"gen_ai.operation.name": "chat", "gen_ai.request.model": DefaultModel, "gen_ai.provider.name": "ragflow"} {
			if got := attr(s.Attributes, k).AsString(); got != v {
				t.Errorf("%s = %q, want %q", k, got, v)
			}
		}
		if attr(s.Attributes, "gen_ai.usage.input_tokens").AsInt64() != 120 || attr(s.Attributes, "gen_ai.usage.output_tokens").AsInt64() != 30 {
			t.Error("token counts missing")
		}
		if fr := attr(s.Attributes, "gen_ai.response.finish_reasons").AsStringSlice(); len(fr) != 1 || fr[0] != "stop" {
			t.Errorf("finish reasons %v", fr)
		}
		hasText := attr(s.Attributes, "gen_ai.input.messages").AsString() != ""
		if hasText != optIn {
			t.Errorf("opted in %v: question in the span %v", optIn, hasText)
		}
	}
}

func TestMCPToolCallNames(t *testing.T) {
	name, attrs := MCPToolCall("ask", "sess-1", "7")
	if name != "tools/call ask" {
		t.Errorf("span name %q", name)
	}
	for k, v := range map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "ask", "mcp.session.id": "sess-1", "jsonrpc.request.id": "7", "gen_ai.operation.name": "execute_tool"} {
		if got := attr(attrs, k).AsString(); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if _, attrs := MCPToolCall("ask", "", ""); attr(attrs, "mcp.session.id").Type() != attribute.EMPTY {
		t.Error("a stateless call names a session")
	}
}

func attr(kvs []attribute.KeyValue, key string) attribute.Value {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

var _ sdktrace.SpanExporter = (*tracetest.InMemoryExporter)(nil)

// TestModelCallSpanIsTheBackendRequestsParent: a request made under the
// model call's client span carries that span's context and makes no
// second client span.
func TestModelCallSpanIsTheBackendRequestsParent(t *testing.T) {
	p, exp := recorder(t, false)
	var got http.Header
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() }))
	defer backend.Close()
	ctx, call := p.StartServer(context.Background(), nil, "POST /agent/tools/ask")
	gctx, gen := StartGeneration(ctx, 1)
	req, _ := http.NewRequestWithContext(gctx, http.MethodPost, backend.URL+"/api/v1/chat/completions", nil)
	resp, err := (&http.Client{Transport: Transport(http.DefaultTransport)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	EndGeneration(gen, Usage{}, nil)
	call.End()
	spans := flushed(t, p, exp)
	if len(spans) != 2 {
		t.Fatalf("%d spans, want the call and the model call", len(spans))
	}
	want := "00-" + spans[0].SpanContext.TraceID().String() + "-" + spans[0].SpanContext.SpanID().String() + "-01"
	if spans[0].Name != "chat ragflow-default" || got.Get("Traceparent") != want {
		t.Errorf("backend got traceparent %q, want the model call's %q", got.Get("Traceparent"), want)
	}
	if attr(spans[0].Attributes, "http.response.status_code").AsInt64() != 200 {
		t.Error("the model call span lacks the response status")
	}
}

// seenRequest is a RoundTripper that keeps the request it was given.
type seenRequest struct{ req *http.Request }

func (s *seenRequest) RoundTrip(r *http.Request) (*http.Response, error) {
	s.req = r
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Request: r}, nil
}

func TestInjectedRequestGoesAsBuiltWithTheBackendCallsContext(t *testing.T) {
	p, exp := recorder(t, false)
	ctx, call := p.StartServer(context.Background(), nil, "POST /agent/tools/ask")
	rctx, retrieval := StartRetrieval(ctx, []string{"d1"}, 8)
	base := &seenRequest{}
	rt := Transport(base)

	req, _ := http.NewRequestWithContext(rctx, http.MethodPost, "http://ragflow.invalid/api/v1/retrieval", http.NoBody)
	Inject(req)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if base.req != req {
		t.Error("a request carrying its span's trace context was copied instead of sent as built")
	}

	// A traceparent that is not the span's (another call's, a stale one)
	// is not trusted: the request goes as a copy carrying the span's.
	stale, _ := http.NewRequestWithContext(rctx, http.MethodPost, "http://ragflow.invalid/api/v1/retrieval", http.NoBody)
	stale.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	if resp, err = rt.RoundTrip(stale); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if base.req == stale || stale.Header.Get("Traceparent") != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" {
		t.Error("the caller's request was written to, or sent with a traceparent not its span's")
	}
	// A second request under the span (a retry) carries the same trace
	// context in a header value of its own, and goes as built too.
	retry, _ := http.NewRequestWithContext(rctx, http.MethodPost, "http://ragflow.invalid/api/v1/retrieval", http.NoBody)
	Inject(retry)
	if resp, err = rt.RoundTrip(retry); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if base.req != retry || &retry.Header["Traceparent"][0] == &req.Header["Traceparent"][0] {
		t.Error("the retry was copied, or shares its traceparent value with the first request")
	}
	retrieval.End()
	call.End()
	spans := flushed(t, p, exp)
	want := "00-" + spans[0].SpanContext.TraceID().String() + "-" + spans[0].SpanContext.SpanID().String() + "-01"
	if spans[0].Name != "retrieval ragflow" || req.Header.Get("Traceparent") != want || retry.Header.Get("Traceparent") != want {
		t.Errorf("traceparents %q and %q, want the retrieval's %q", req.Header.Get("Traceparent"), retry.Header.Get("Traceparent"), want)
	}
}

func TestInjectOutsideABackendCallWritesNothing(t *testing.T) {
	p, _ := recorder(t, false)
	ctx, call := p.StartServer(context.Background(), nil, "POST /agent/tools/ask")
	defer call.End()
	for _, c := range []context.Context{context.Background(), ctx} { // untraced; under the server span
		req, _ := http.NewRequestWithContext(c, http.MethodPost, "http://ragflow.invalid/", http.NoBody)
		Inject(req)
		if len(req.Header) != 0 {
			t.Errorf("Inject wrote %v outside a backend call's span", req.Header)
		}
	}
}
