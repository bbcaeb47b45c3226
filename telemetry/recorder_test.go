package telemetry

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// recorderWith is a Provider exporting to memory, with the environment
// vars (the timed export pushed out of the way unless vars set it). The
// exporter copies what it keeps (copyingExporter), so these tests run
// with the spans' storage reused, as with the OTLP exporters.
func recorderWith(t *testing.T, vars map[string]string) (*Provider, *tracetest.InMemoryExporter) {
	t.Helper()
	all := map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "600000"}
	for k, v := range vars {
		all[k] = v
	}
	exp := tracetest.NewInMemoryExporter()
	p, err := New(context.Background(), Options{Exporter: copyingExporter{exp}, ExportCopies: true, Getenv: env(all)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return p, exp
}

// copyingExporter keeps in memory a copy of each span, its attributes
// included, made during ExportSpans (tracetest's snapshot shares them).
type copyingExporter struct{ *tracetest.InMemoryExporter }

func (e copyingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	stubs := tracetest.SpanStubsFromReadOnlySpans(spans)
	for i := range stubs {
		stubs[i].Attributes = slices.Clone(stubs[i].Attributes)
	}
	return e.InMemoryExporter.ExportSpans(ctx, stubs.Snapshots())
}

// onErrors collects what reaches the process's OpenTelemetry error
// handler (Options.OnError) during the test.
func onErrors(t *testing.T) func() []string {
	t.Helper()
	var mu sync.Mutex
	var got []string
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		got = append(got, err.Error())
		mu.Unlock()
	}))
	t.Cleanup(func() { otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {})) })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// TestAKeySetTwiceKeepsItsLastValue: a key set again is one attribute
// with the last value, where it was first set, as the SDK exports it.
func TestAKeySetTwiceKeepsItsLastValue(t *testing.T) {
	p, exp := recorderWith(t, nil)
	_, s := p.StartServer(context.Background(), nil, "POST /agent/tools/ask", attribute.String("a", "first"))
	s.Set(attribute.Int("b", 1), attribute.String("a", "second"))
	s.Set(attribute.String("a", "last"), attribute.Int("c", 3))
	s.End()
	spans := flushed(t, p, exp)
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	got := spans[0].Attributes
	want := []attribute.KeyValue{attribute.String("a", "last"), attribute.Int("b", 1), attribute.Int("c", 3)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("attributes %v, want %v", got, want)
	}
	if spans[0].DroppedAttributes != 0 {
		t.Errorf("%d dropped, want none", spans[0].DroppedAttributes)
	}
}

// TestTheAttributeCountLimit: past OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT (else
// OTEL_ATTRIBUTE_COUNT_LIMIT) a new key is dropped and counted, and a
// key already kept still takes a new value.
func TestTheAttributeCountLimit(t *testing.T) {
	for _, vars := range []map[string]string{
		{"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "3"},
		{"OTEL_ATTRIBUTE_COUNT_LIMIT": "3"},
		{"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "3", "OTEL_ATTRIBUTE_COUNT_LIMIT": "10"},
	} {
		p, exp := recorderWith(t, vars)
		_, s := p.StartServer(context.Background(), nil, "call")
		s.Set(attribute.Int("k1", 1), attribute.Int("k2", 2), attribute.Int("k3", 3), attribute.Int("k4", 4))
		s.Set(attribute.Int("k1", 10), attribute.Int("k5", 5), attribute.Int("k4", 40))
		s.End()
		got := flushed(t, p, exp)[0]
		want := []attribute.KeyValue{attribute.Int("k1", 10), attribute.Int("k2", 2), attribute.Int("k3", 3)}
		if !reflect.DeepEqual(got.Attributes, want) || got.DroppedAttributes != 3 {
			t.Errorf("%v: attributes %v dropped %d, want %v and 3 dropped", vars, got.Attributes, got.DroppedAttributes, want)
		}
	}
}

// TestManyAttributesStayBounded: a span set far more often than the
// limit keeps at most the limit, with the last values.
func TestManyAttributesStayBounded(t *testing.T) {
	p, exp := recorderWith(t, map[string]string{"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "40"})
	_, s := p.StartServer(context.Background(), nil, "call")
	for i := range 1000 {
		s.Set(attribute.Int("k"+string(rune('a'+i%50)), i))
	}
	s.End()
	got := flushed(t, p, exp)[0]
	if len(got.Attributes) != 40 || attr(got.Attributes, "ka").AsInt64() != 950 {
		t.Errorf("%d attributes, ka=%v; want 40 and ka's last value 950", len(got.Attributes), attr(got.Attributes, "ka").AsInt64())
	}
	if got.DroppedAttributes == 0 {
		t.Error("no attribute counted dropped")
	}
}

// TestTheValueLengthLimit: OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT cuts string
// values to that many characters.
func TestTheValueLengthLimit(t *testing.T) {
	p, exp := recorderWith(t, map[string]string{"OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT": "3"})
	_, s := p.StartServer(context.Background(), nil, "call")
	s.Set(attribute.String("s", "héllo"), attribute.StringSlice("l", []string{"ab", "abcd"}), attribute.Int("n", 12345))
	s.End()
	got := flushed(t, p, exp)[0].Attributes
	if attr(got, "s").AsString() != "hél" || !reflect.DeepEqual(attr(got, "l").AsStringSlice(), []string{"ab", "abc"}) || attr(got, "n").AsInt64() != 12345 {
		t.Errorf("attributes %v", got)
	}
}

const (
	sampledParent   = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	unsampledParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
)

// TestSamplerFromTheEnvironment: OTEL_TRACES_SAMPLER and its argument
// choose the SDK's sampler, for a new trace and under a caller's sampled
// or unsampled traceparent; an unknown sampler or a bad ratio is reported
// and the default used.
func TestSamplerFromTheEnvironment(t *testing.T) {
	cases := []struct {
		sampler, arg             string
		root, sampled, unsampled bool
		reported                 string
	}{
		{"", "", true, true, false, ""},
		{"parentbased_always_on", "", true, true, false, ""},
		{"always_on", "", true, true, true, ""},
		{"always_off", "", false, false, false, ""},
		{"parentbased_always_off", "", false, true, false, ""},
		{"traceidratio", "0", false, false, false, ""},
		{"traceidratio", "1", true, true, true, ""},
		{"traceidratio", "", true, true, true, ""},
		{"parentbased_traceidratio", "0", false, true, false, ""},
		{"ParentBased_TraceIDRatio", "1", true, true, false, ""},
		{"traceidratio", "2", true, true, true, "OTEL_TRACES_SAMPLER_ARG"},
		{"traceidratio", "half", true, true, true, "OTEL_TRACES_SAMPLER_ARG"},
		{"jaeger_remote", "", true, true, false, "unsupported sampler"},
	}
	for _, c := range cases {
		t.Run(c.sampler+"_"+c.arg, func(t *testing.T) {
			reported := onErrors(t)
			p, exp := recorderWith(t, map[string]string{"OTEL_TRACES_SAMPLER": c.sampler, "OTEL_TRACES_SAMPLER_ARG": c.arg})
			for _, in := range []struct {
				tp   string
				want bool
			}{{"", c.root}, {sampledParent, c.sampled}, {unsampledParent, c.unsampled}} {
				_, s := p.StartServer(context.Background(), http.Header{"Traceparent": {in.tp}}, "call")
				if s.Recording() != in.want {
					t.Errorf("traceparent %q: recording %v, want %v", in.tp, s.Recording(), in.want)
				}
				s.End()
			}
			n := 0
			for _, w := range []bool{c.root, c.sampled, c.unsampled} {
				if w {
					n++
				}
			}
			if got := len(flushed(t, p, exp)); got != n {
				t.Errorf("%d spans exported, want %d", got, n)
			}
			msgs := strings.Join(reported(), "\n")
			if (c.reported == "") != (msgs == "") || !strings.Contains(msgs, c.reported) {
				t.Errorf("reported %q, want %q", msgs, c.reported)
			}
		})
	}
}

// TestParentDecidesAsTheSampler: under a valid parent, local or remote,
// sampled or not, with a tracestate or none, decide gives each sampler
// the environment can name the decision and tracestate the SDK's
// sampler gives (for the parentbased_* without calling it).
func TestParentDecidesAsTheSampler(t *testing.T) {
	ts, err := trace.ParseTraceState("rojo=00f067aa0ba902b7")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio",
		"always_on", "always_off", "traceidratio", "jaeger_remote"} {
		for _, arg := range []string{"", "0", "0.5"} {
			r := newRecorder(env(map[string]string{"OTEL_TRACES_SAMPLER": name, "OTEL_TRACES_SAMPLER_ARG": arg}), tracetest.NewInMemoryExporter(), false, nil)
			for _, remote := range []bool{false, true} {
				for _, flags := range []trace.TraceFlags{0, trace.FlagsSampled} {
					for _, state := range []trace.TraceState{{}, ts} {
						psc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: newTraceID(), SpanID: newSpanID(),
							TraceFlags: flags, TraceState: state, Remote: remote})
						ctx := trace.ContextWithSpanContext(context.Background(), psc)
						got := r.own.decide(ctx, psc, psc.TraceID(), "s", trace.SpanKindClient, nil)
						want := r.sampler.ShouldSample(sdktrace.SamplingParameters{ParentContext: ctx, TraceID: psc.TraceID(), Name: "s", Kind: trace.SpanKindClient})
						if got.Decision != want.Decision || got.Tracestate.String() != want.Tracestate.String() || len(got.Attributes) != len(want.Attributes) {
							t.Errorf("%s(%s) under %v: %v %q, the sampler's %v %q", name, arg, psc, got.Decision, got.Tracestate, want.Decision, want.Tracestate)
						}
					}
				}
			}
			_ = r.Shutdown(context.Background())
		}
	}
}

// blockingExporter holds its first export until release is closed.
type blockingExporter struct {
	entered, release chan struct{}
	once             sync.Once
	mu               sync.Mutex
	spans            []string
	shutdown         bool
}

func newBlockingExporter() *blockingExporter {
	return &blockingExporter{entered: make(chan struct{}), release: make(chan struct{})}
}

func (e *blockingExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.once.Do(func() {
		close(e.entered)
		<-e.release
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range spans {
		e.spans = append(e.spans, s.Name())
	}
	return nil
}

func (e *blockingExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	e.shutdown = true
	e.mu.Unlock()
	return nil
}

func (e *blockingExporter) exported() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.spans...)
}

// TestAFullQueueDropsSpansAndSaysSo: while the exporter is busy, spans
// beyond OTEL_BSP_MAX_QUEUE_SIZE are dropped, counted and reported
// through the error handler; the queued ones are exported afterwards.
func TestAFullQueueDropsSpansAndSaysSo(t *testing.T) {
	reported := onErrors(t)
	exp := newBlockingExporter()
	p, err := New(context.Background(), Options{Exporter: exp, Getenv: env(map[string]string{
		"OTEL_BSP_MAX_QUEUE_SIZE": "4", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "4", "OTEL_BSP_SCHEDULE_DELAY": "600000"})})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	end := func(name string) {
		_, s := p.StartServer(context.Background(), nil, name)
		s.End()
	}
	for _, n := range []string{"a1", "a2", "a3", "a4"} { // a full batch: the exporter takes it and blocks
		end(n)
	}
	select {
	case <-exp.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("a full batch was not exported")
	}
	for _, n := range []string{"b1", "b2", "b3", "b4", "c1", "c2", "c3"} {
		end(n)
	}
	if lost := p.rec.batch.lostSpans(); lost != 3 {
		t.Errorf("%d spans lost, want 3 (c1-c3)", lost)
	}
	close(exp.release)
	if err := p.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(exp.exported(), " "); got != "a1 a2 a3 a4 b1 b2 b3 b4" {
		t.Errorf("exported %s", got)
	}
	if msgs := strings.Join(reported(), "\n"); !strings.Contains(msgs, "3 spans dropped") || !strings.Contains(msgs, "OTEL_BSP_MAX_QUEUE_SIZE=4") {
		t.Errorf("reported %q, want the 3 dropped spans", msgs)
	}
}

// TestForceFlushAndShutdown: spans wait for the batch until ForceFlush;
// Shutdown exports what is queued, then shuts the exporter down, and a
// span ended afterwards is dropped.
func TestForceFlushAndShutdown(t *testing.T) {
	exp := newBlockingExporter()
	close(exp.release)
	p, err := New(context.Background(), Options{Exporter: exp, Getenv: env(map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "600000"})})
	if err != nil {
		t.Fatal(err)
	}
	_, s := p.StartServer(context.Background(), nil, "one")
	s.End()
	time.Sleep(20 * time.Millisecond)
	if got := exp.exported(); len(got) != 0 {
		t.Fatalf("exported %v before the batch was due", got)
	}
	if err := p.ForceFlush(context.Background()); err != nil || len(exp.exported()) != 1 {
		t.Fatalf("ForceFlush: %v, exported %v", err, exp.exported())
	}
	_, s = p.StartServer(context.Background(), nil, "two")
	s.End()
	_, late := p.StartServer(context.Background(), nil, "late")
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	late.End()
	if err := p.ForceFlush(context.Background()); err != nil {
		t.Errorf("ForceFlush after Shutdown: %v", err)
	}
	exp.mu.Lock()
	shut := exp.shutdown
	exp.mu.Unlock()
	if got := strings.Join(exp.exported(), " "); got != "one two" || !shut {
		t.Errorf("exported %q, exporter shut down %v; want one two, and shut down", got, shut)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Errorf("a second Shutdown: %v", err)
	}
}

// TestTheTimedExport: without a flush, the batch goes every
// OTEL_BSP_SCHEDULE_DELAY.
func TestTheTimedExport(t *testing.T) {
	p, exp := recorderWith(t, map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "10"})
	_, s := p.StartServer(context.Background(), nil, "timed")
	s.End()
	deadline := time.Now().Add(10 * time.Second)
	for len(exp.GetSpans()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if len(exp.GetSpans()) != 1 {
		t.Error("the span was not exported on the timer")
	}
}

// TestConcurrentUseOfASpan: attributes, status, events and names set
// from several goroutines while another ends the span (run with -race):
// one span is exported, with only what was set before End.
func TestConcurrentUseOfASpan(t *testing.T) {
	p, exp := recorderWith(t, nil)
	ctx, call := p.StartServer(context.Background(), nil, "call")
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				call.Set(attribute.Int("g"+string(rune('0'+g)), i))
				_, st := Stage(ctx, StageDecide)
				EndDecision(st, true, "", "r")
				trace.SpanFromContext(ctx).AddEvent("e")
				trace.SpanFromContext(ctx).SetStatus(codes.Error, "x")
				_ = call.TraceID()
			}
		})
	}
	wg.Go(func() {
		time.Sleep(time.Millisecond)
		call.End()
	})
	wg.Wait()
	call.End()
	spans := flushed(t, p, exp)
	if len(spans) != 1 {
		t.Fatalf("%d spans exported, want 1", len(spans))
	}
	if len(spans[0].Events) > 128 || spans[0].Status.Code != codes.Error {
		t.Errorf("%d events (limit 128), status %v", len(spans[0].Events), spans[0].Status)
	}
}

// TestEndingTwiceAndWritingAfterEnd: a second End does nothing, and
// attributes, status, name, events and links given after End are
// ignored.
func TestEndingTwiceAndWritingAfterEnd(t *testing.T) {
	p, exp := recorderWith(t, nil)
	ctx, s := p.StartServer(context.Background(), nil, "call", attribute.Int("before", 1))
	s.End()
	first := time.Now()
	time.Sleep(5 * time.Millisecond)
	raw := trace.SpanFromContext(ctx)
	s.Set(attribute.Int("after", 2))
	raw.SetStatus(codes.Error, "late")
	raw.SetName("renamed")
	raw.AddEvent("late")
	raw.RecordError(errors.New("late"))
	raw.AddLink(trace.Link{SpanContext: raw.SpanContext()})
	if raw.IsRecording() {
		t.Error("an ended span records")
	}
	s.End()
	spans := flushed(t, p, exp)
	if len(spans) != 1 {
		t.Fatalf("%d spans, want one", len(spans))
	}
	got := spans[0]
	if got.Name != "call" || got.Status.Code != codes.Unset || len(got.Events) != 0 || len(got.Links) != 0 ||
		len(got.Attributes) != 1 || attr(got.Attributes, "before").AsInt64() != 1 {
		t.Errorf("after End: name %q status %v events %d links %d attributes %v", got.Name, got.Status, len(got.Events), len(got.Links), got.Attributes)
	}
	if got.EndTime.After(first) {
		t.Errorf("end %v moved by the second End (first ended before %v)", got.EndTime, first)
	}
}

// TestTheTraceAPI: spans made through the trace API (as a library given
// the gate's provider would) have new random ids or their parent's trace,
// their options, events, links and status as the SDK records them.
func TestTheTraceAPI(t *testing.T) {
	p, exp := recorderWith(t, nil)
	tr := p.rec.Tracer("other/scope", trace.WithInstrumentationVersion("v1"))
	start := time.Unix(1700000000, 0)
	ctx, root := tr.Start(context.Background(), "root", trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithTimestamp(start), trace.WithAttributes(attribute.Int("a", 1)))
	_, child := tr.Start(ctx, "child")
	_, other := tr.Start(ctx, "new root", trace.WithNewRoot(),
		trace.WithLinks(trace.Link{SpanContext: root.SpanContext(), Attributes: []attribute.KeyValue{attribute.Bool("l", true)}}))
	child.RecordError(errors.New("boom"))
	child.SetStatus(codes.Error, "boom")
	child.SetStatus(codes.Ok, "ignored description")
	child.SetStatus(codes.Error, "too late: Ok is final")
	child.End(trace.WithTimestamp(start.Add(time.Second)))
	other.End()
	root.End()
	spans := flushed(t, p, exp)
	if len(spans) != 3 {
		t.Fatalf("%d spans", len(spans))
	}
	c, o, r := spans[0], spans[1], spans[2]
	if !r.SpanContext.TraceID().IsValid() || !r.SpanContext.SpanID().IsValid() || r.Parent.IsValid() || !r.SpanContext.IsSampled() {
		t.Errorf("root: %v parent %v", r.SpanContext, r.Parent)
	}
	if r.SpanKind != trace.SpanKindProducer || !r.StartTime.Equal(start) || attr(r.Attributes, "a").AsInt64() != 1 || r.ChildSpanCount != 2 {
		t.Errorf("root: kind %v start %v attributes %v children %d", r.SpanKind, r.StartTime, r.Attributes, r.ChildSpanCount)
	}
	if r.InstrumentationScope.Name != "other/scope" || r.InstrumentationScope.Version != "v1" || r.Resource == nil {
		t.Errorf("scope %v resource %v", r.InstrumentationScope, r.Resource)
	}
	if c.SpanContext.TraceID() != r.SpanContext.TraceID() || c.Parent.SpanID() != r.SpanContext.SpanID() || c.SpanKind != trace.SpanKindInternal {
		t.Errorf("child: trace %v parent %v kind %v", c.SpanContext.TraceID(), c.Parent.SpanID(), c.SpanKind)
	}
	if c.Status.Code != codes.Ok || c.Status.Description != "" || !c.EndTime.Equal(start.Add(time.Second)) {
		t.Errorf("child: status %v end %v", c.Status, c.EndTime)
	}
	if len(c.Events) != 1 || c.Events[0].Name != "exception" || attr(c.Events[0].Attributes, "exception.message").AsString() != "boom" ||
		attr(c.Events[0].Attributes, "exception.type").AsString() != "*errors.errorString" {
		t.Errorf("child events %v", c.Events)
	}
	if o.SpanContext.TraceID() == r.SpanContext.TraceID() || o.Parent.IsValid() || len(o.Links) != 1 ||
		o.Links[0].SpanContext.SpanID() != r.SpanContext.SpanID() || !o.Links[0].Attributes[0].Value.AsBool() {
		t.Errorf("new root: trace %v parent %v links %v", o.SpanContext.TraceID(), o.Parent, o.Links)
	}
}

// TestRecSpanImplementsReadOnlySpan calls every exported method of
// sdktrace.ReadOnlySpan on an exported span: the span leaves the
// interface's unexported method to a nil embedded value, so a method an
// SDK upgrade adds would otherwise panic in the exporter.
func TestRecSpanImplementsReadOnlySpan(t *testing.T) {
	p, _ := recorderWith(t, nil)
	_, s := p.StartServer(context.Background(), nil, "call")
	s.End()
	rs := s.s.(*spanRef).rec
	rs.finish()
	v := reflect.ValueOf(sdktrace.ReadOnlySpan(rs))
	it := reflect.TypeFor[sdktrace.ReadOnlySpan]()
	for i := range it.NumMethod() {
		m := it.Method(i)
		if !m.IsExported() {
			continue
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("ReadOnlySpan.%s panics: %v (the SDK added a method recSpan lacks)", m.Name, r)
				}
			}()
			v.MethodByName(m.Name).Call(nil)
		}()
	}
}

// TestUnderCaddysTracing: when Caddy's tracing directive started the
// request's span (an SDK span; this gate's tracing off), the call and
// its backend spans are made by that span's provider, under it.
func TestUnderCaddysTracing(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	caddy := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer caddy.Shutdown(context.Background())
	ctx, req := caddy.Tracer("caddy").Start(context.Background(), "handler", trace.WithSpanKind(trace.SpanKindServer))
	var p *Provider
	ctx, call := p.StartServer(ctx, nil, "POST /agent/tools/ask", attribute.String("http.route", "/agent/tools/ask"))
	_, gen := StartGeneration(ctx, 1)
	EndGeneration(gen, Usage{InputTokens: 3}, nil)
	EndCallAs(call, "agent", "jwt", 200, "answered")
	req.End()
	spans := exp.GetSpans()
	if len(spans) != 3 {
		t.Fatalf("%d spans %v", len(spans), names(spans))
	}
	g, c := spans[0], spans[1]
	if c.Parent.SpanID() != req.SpanContext().SpanID() || g.Parent.SpanID() != c.SpanContext.SpanID() {
		t.Errorf("parentage: call under %v, model call under %v", c.Parent.SpanID(), g.Parent.SpanID())
	}
	if attr(c.Attributes, "wikigate.result").AsString() != "answered" || attr(c.Attributes, "http.route").AsString() != "/agent/tools/ask" {
		t.Errorf("call attributes %v", c.Attributes)
	}
}

// TestDedupeMatchesAMap holds dedupe (the in-place scan with its hash
// bits, and the map past dedupeScan) to the plain rule: the first limit
// distinct valid keys in the order first set, each with its last value.
func TestDedupeMatchesAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{"a", "b", "wikigate.decision.allow", "wikigate.tool_gate.allow", "http.route", "x.y", "", "k1", "k2", "k10"}
	for round := range 3000 {
		kvs := randomAttrs(rng, keys, rng.IntN(70))
		limit := rng.IntN(12) - 1
		want, wantDropped := mapRule(kvs, limit)
		got, dropped := dedupe(slices.Clone(kvs), limit)
		if len(got) == 0 && len(want) == 0 {
			got, want = nil, nil
		}
		if !reflect.DeepEqual(got, want) || dropped != wantDropped {
			t.Fatalf("round %d, limit %d, %v:\ngot  %v (%d dropped)\nwant %v (%d dropped)", round, limit, kvs, got, dropped, want, wantDropped)
		}
	}
}

// TestSetMatchesAMap: attributes set on a span in several calls (as they
// come, and past dedupeScan in bulk) are exported by the map rule, under
// limits from none to more than dedupeScan.
func TestSetMatchesAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	keys := []string{"", "wikigate.decision.allow", "wikigate.tool_gate.allow", "wikigate.policy.revision"}
	for i := range 90 {
		keys = append(keys, "k"+strconv.Itoa(i))
	}
	for _, limit := range []int{-1, 0, 1, 5, 20, 47, 48, 49, 60, 128} {
		p, exp := recorderWith(t, map[string]string{"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": strconv.Itoa(limit)})
		for round := range 60 {
			kvs := randomAttrs(rng, keys[:4+rng.IntN(len(keys)-4)], rng.IntN(300))
			_, s := p.StartServer(context.Background(), nil, "r"+strconv.Itoa(round), kvs[:min(len(kvs), 3)]...)
			for rest := kvs[min(len(kvs), 3):]; len(rest) > 0; {
				n := min(len(rest), 1+rng.IntN(8))
				s.Set(rest[:n]...)
				rest = rest[n:]
			}
			s.End()
			got := flushed(t, p, exp)
			exp.Reset()
			want, wantDropped := mapRule(kvs, limit)
			if len(got) != 1 || !slices.Equal(got[0].Attributes, want) || got[0].DroppedAttributes != wantDropped {
				t.Fatalf("limit %d, %v:\ngot  %v (%d dropped)\nwant %v (%d dropped)", limit, kvs, got[0].Attributes, got[0].DroppedAttributes, want, wantDropped)
			}
		}
	}
}

// randomAttrs is n attributes, each with one of keys and its index as value.
func randomAttrs(rng *rand.Rand, keys []string, n int) []attribute.KeyValue {
	kvs := make([]attribute.KeyValue, n)
	for i := range kvs {
		kvs[i] = attribute.Int(keys[rng.IntN(len(keys))], i)
	}
	return kvs
}

// mapRule is the SDK's rule for attributes set in this order, by a map:
// the first limit distinct valid keys in the order first set (all when
// limit is negative), each with its last value, and how many dropped.
func mapRule(kvs []attribute.KeyValue, limit int) ([]attribute.KeyValue, int) {
	var want []attribute.KeyValue
	at := map[attribute.Key]int{}
	dropped := 0
	for _, kv := range kvs {
		switch i, ok := at[kv.Key]; {
		case !kv.Valid():
			dropped++
		case ok:
			want[i].Value = kv.Value
		case limit >= 0 && len(want) >= limit:
			dropped++
		default:
			at[kv.Key] = len(want)
			want = append(want, kv)
		}
	}
	return want, dropped
}
