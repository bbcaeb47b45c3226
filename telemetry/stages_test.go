package telemetry

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestStagesAreTheCallSpansAttributes: an ask's stages make no span of
// their own; what each found is on the call's span, the tool gate's
// answer under its own keys, and the only other span is the backend
// call's.
func TestStagesAreTheCallSpansAttributes(t *testing.T) {
	p, exp := recorder(t, false)
	ctx, call := p.StartServer(context.Background(), nil, "POST /agent/tools/ask")
	_, s := Stage(ctx, StageAuthenticate)
	EndAuth(s, "agent", "jwt", nil)
	_, s = Stage(ctx, StageToolGate)
	EndDecision(s, true, "", "rev-1")
	_, s = Stage(ctx, StageDecide)
	EndDecision(s, false, "forbidden_scope", "rev-1")
	_, s = Stage(ctx, StageResponseCheck)
	EndResponseCheck(s, 5, 2)
	_, gen := StartGeneration(ctx, 1)
	EndGeneration(gen, Usage{InputTokens: 10}, nil)
	_, s = Stage(ctx, StageVerify)
	EndVerify(s, 3, false)
	_, s = Stage(ctx, StageAudit)
	s.Fail(errors.New("disk full"), "")
	s.End()
	EndCallAs(call, "agent", "jwt", 403, "forbidden_scope")

	spans := flushed(t, p, exp)
	if len(spans) != 2 {
		t.Fatalf("%d spans %v, want the call's and the model call's", len(spans), names(spans))
	}
	server := spans[1]
	if server.Name != "POST /agent/tools/ask" || server.Status.Code != 0 {
		t.Fatalf("call span %q status %v: a stage ended or failed it", server.Name, server.Status)
	}
	want := map[string]attribute.Value{
		"wikigate.caller.type":      attribute.StringValue("agent"),
		"wikigate.credential":       attribute.StringValue("jwt"),
		"wikigate.tool_gate.allow":  attribute.BoolValue(true),
		"wikigate.decision.allow":   attribute.BoolValue(false),
		"wikigate.decision.code":    attribute.StringValue("forbidden_scope"),
		"wikigate.policy.revision":  attribute.StringValue("rev-1"),
		"wikigate.chunks.kept":      attribute.IntValue(5),
		"wikigate.chunks.dropped":   attribute.IntValue(2),
		"wikigate.citations":        attribute.IntValue(3),
		"wikigate.no_answer":        attribute.BoolValue(false),
		"http.response.status_code": attribute.IntValue(403),
		"wikigate.result":           attribute.StringValue("forbidden_scope"),
	}
	for k, v := range want {
		if got := attr(server.Attributes, k); got != v {
			t.Errorf("call span %s = %v, want %v", k, got.String(), v.String())
		}
	}
	if got := attr(server.Attributes, "wikigate.tool_gate.code"); got.Type() != attribute.EMPTY {
		t.Errorf("an allowing tool gate wrote a code %v", got.String())
	}
}

// TestAStageOutsideATraceIsNothing: a stage with no recording span in its
// context records nothing and changes nothing.
func TestAStageOutsideATraceIsNothing(t *testing.T) {
	ctx := context.Background()
	ctx2, s := Stage(ctx, StageDecide, attribute.Bool("x", true))
	if ctx2 != ctx || s.Recording() {
		t.Fatal("a stage without a trace recorded")
	}
	EndDecision(s, true, "", "r")
}

// TestADroppedTraceMakesNoSpans: when the sampler drops a call (here the
// caller's traceparent says unsampled, and the default sampler follows
// its parent), the call's span is zero, so the gate builds no attributes,
// and no stage, model call or backend request makes a span.
func TestADroppedTraceMakesNoSpans(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	p, err := New(context.Background(), Options{Exporter: exp})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	in := http.Header{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"}}
	ctx, call := p.StartServer(context.Background(), in, "POST /agent/tools/ask")
	if call.Recording() || call.TraceID() != "" {
		t.Fatal("an unsampled call's span records")
	}
	_, s := Stage(ctx, StageDecide)
	EndDecision(s, true, "", "r")
	gctx, gen := StartGeneration(ctx, 1)
	if gen.Recording() || gctx != ctx {
		t.Error("an unsampled call made a model call span")
	}
	EndGeneration(gen, Usage{}, nil)
	EndCallAs(call, "", "", 200, "answered")
	if spans := flushed(t, p, exp); len(spans) != 0 {
		t.Errorf("an unsampled call exported %v", names(spans))
	}
}

func names(spans tracetest.SpanStubs) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name
	}
	return out
}

// failingExporter refuses every export, as a collector that is down.
type failingExporter struct{}

func (failingExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error {
	return errors.New("collector down")
}
func (failingExporter) Shutdown(context.Context) error { return nil }

// TestExportErrorsGoToOnError: a failed export reaches Options.OnError
// (the gate's zap logger), not Go's log on standard error.
func TestExportErrorsGoToOnError(t *testing.T) {
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "20") // the batch processor's timed export reports its errors
	got := make(chan error, 4)
	p, err := New(context.Background(), Options{Exporter: failingExporter{}, OnError: func(err error) {
		select {
		case got <- err:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	defer otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))
	_, call := p.StartServer(context.Background(), nil, "POST /agent/tools/ask")
	call.End()
	select {
	case err := <-got:
		if !strings.Contains(err.Error(), "collector down") {
			t.Errorf("OnError got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the failed export never reached OnError")
	}
}
