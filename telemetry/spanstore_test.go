package telemetry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
	"unsafe"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// exportLog is an exporter that checks every span it is given and keeps,
// for each, the Attributes slice as given (keep: as tracetest's
// InMemoryExporter does) and a copy of it made during ExportSpans.
type exportLog struct {
	keep bool

	mu      sync.Mutex
	n       int
	bad     []string
	given   [][]attribute.KeyValue // when keep
	copies  [][]attribute.KeyValue
	storage map[*attribute.KeyValue]int // the storage each span's attributes were in, and how many spans used it
}

func newExportLog(keep bool) *exportLog {
	return &exportLog{keep: keep, storage: map[*attribute.KeyValue]int{}}
}

// ExportSpans checks that each span has only attributes it set itself
// (workload: every value is the span's name) and no late one, nor any
// status, event or link (the workload sets none: only a stale span's
// would be), nor more than one child.
func (e *exportLog) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range spans {
		e.n++
		attrs := s.Attributes()
		for _, kv := range attrs {
			if kv.Value.AsString() != s.Name() {
				e.bad = append(e.bad, fmt.Sprintf("span %s has %s=%s", s.Name(), kv.Key, kv.Value.String()))
			}
		}
		if len(attrs) == 0 || s.Status().Code != codes.Unset || len(s.Events()) > 0 || len(s.Links()) > 0 || s.ChildSpanCount() > 1 {
			e.bad = append(e.bad, fmt.Sprintf("span %s: %d attributes, status %v, events %v, links %v, %d children",
				s.Name(), len(attrs), s.Status(), s.Events(), s.Links(), s.ChildSpanCount()))
			continue
		}
		e.storage[unsafe.SliceData(attrs)]++
		e.copies = append(e.copies, slices.Clone(attrs))
		if e.keep {
			e.given = append(e.given, attrs)
		}
	}
	return nil
}

func (*exportLog) Shutdown(context.Context) error { return nil }

// reused is how many spans' attributes were in storage an earlier span's
// had been in.
func (e *exportLog) reused() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, uses := range e.storage {
		n += uses - 1
	}
	return n
}

// workload makes calls from several goroutines as the gate does (a server
// span, a client span under it, attributes set at start and later, some
// spans growing out of their storage), every attribute's value the span's
// name, and writes to each span again after it ended (which must change
// nothing), with flushes and small batches so that exports interleave
// with new spans.
func workload(t *testing.T, p *Provider) {
	t.Helper()
	var ended sync.Map // a span ended, written to again later
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			for i := range 60 {
				name := "g" + strconv.Itoa(g) + "-" + strconv.Itoa(i)
				ctx, call := p.StartServer(context.Background(), nil, name, attribute.String("start", name))
				for k := range i % 30 { // up to 29: a call's storage holds 24
					call.Set(attribute.String("call."+strconv.Itoa(k), name))
				}
				_, client := Start(ctx, name+"/client", trace.SpanKindClient, attribute.String("start", name+"/client"))
				client.Set(attribute.String("late.set", name+"/client"))
				client.End()
				call.End()
				if prev, ok := ended.Swap(g, call); ok {
					prev.(Span).Set(attribute.String("after.end", "late")) // its storage may be another span's by now
					trace.SpanFromContext(ctx).SetAttributes(attribute.String("after.end", "late"))
				}
				if i%17 == 0 {
					if err := p.ForceFlush(context.Background()); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	if err := p.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func newLogged(t *testing.T, exp *exportLog, copies bool) *Provider {
	t.Helper()
	p, err := New(context.Background(), Options{Exporter: exp, ExportCopies: copies, Getenv: env(map[string]string{
		"OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "4", "OTEL_BSP_MAX_QUEUE_SIZE": "100000", "OTEL_BSP_SCHEDULE_DELAY": "600000"})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return p
}

// TestAnExporterThatKeepsSpansGetsStorageOfItsOwn: without
// Options.ExportCopies (tracetest.InMemoryExporter and any exporter the
// caller gives) no span's attribute storage is ever another's, so what
// the exporter kept still reads as it did when exported.
func TestAnExporterThatKeepsSpansGetsStorageOfItsOwn(t *testing.T) {
	exp := newExportLog(true)
	workload(t, newLogged(t, exp, false))
	if exp.n != 360 || len(exp.bad) > 0 {
		t.Fatalf("%d spans exported, want 360; wrong attributes: %v", exp.n, exp.bad)
	}
	if n := exp.reused(); n != 0 {
		t.Errorf("%d spans' attributes were in storage an earlier, kept span had", n)
	}
	for i, kept := range exp.given {
		if !slices.Equal(kept, exp.copies[i]) {
			t.Errorf("kept attributes changed after export: %v, were %v", kept, exp.copies[i])
		}
	}
}

// TestStorageIsReusedAfterACopyingExport: with Options.ExportCopies (as
// with the OTLP exporters) spans take storage earlier spans were
// exported from, and each span still has exactly its own attributes,
// none written after it ended. Were storage reused without ExportCopies,
// the test above would see it as this one does.
func TestStorageIsReusedAfterACopyingExport(t *testing.T) {
	exp := newExportLog(false)
	workload(t, newLogged(t, exp, true))
	if exp.n != 360 || len(exp.bad) > 0 {
		t.Fatalf("%d spans exported, want 360; wrong attributes: %v", exp.n, exp.bad)
	}
	if n := exp.reused(); n < 100 {
		t.Errorf("%d of 360 spans reused storage; want most of them", n)
	}
}

// TestAStaleSpanLeavesItsReusedRecordAlone: a span held in a context
// after its export, its record now another span's, keeps its identity
// and records nothing: whatever is done to it (attributes, status, name,
// events, links, End, a child) does not reach the span that has its
// record.
func TestAStaleSpanLeavesItsReusedRecordAlone(t *testing.T) {
	exp := newExportLog(false)
	p := newLogged(t, exp, true)
	oldCtx, old := p.StartServer(context.Background(), nil, "old", attribute.String("a", "old"))
	oldSC := trace.SpanContextFromContext(oldCtx)
	old.End()
	if err := p.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, next := p.StartServer(context.Background(), nil, "next", attribute.String("a", "next"))
	if old.s.(*spanRef).rec != next.s.(*spanRef).rec {
		t.Fatal("the next span did not take the exported span's record")
	}
	raw := trace.SpanFromContext(oldCtx)
	old.Set(attribute.String("b", "late"))
	raw.SetAttributes(attribute.String("c", "late"))
	raw.SetStatus(codes.Error, "late")
	raw.SetName("late")
	raw.AddEvent("late")
	raw.RecordError(errors.New("late"))
	raw.AddLink(trace.Link{SpanContext: oldSC})
	if _, child := Start(oldCtx, "child", trace.SpanKindClient); child.Recording() {
		t.Error("a stale span's context made a child span")
	}
	raw.End()
	if raw.IsRecording() || !raw.SpanContext().Equal(oldSC) || raw.SpanContext().Equal(next.s.SpanContext()) {
		t.Errorf("the stale span: recording %v, its context %v (was %v), the next span's %v", raw.IsRecording(), raw.SpanContext(), oldSC, next.s.SpanContext())
	}
	if !next.s.IsRecording() {
		t.Error("the next span stopped recording")
	}
	next.End()
	if err := p.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if exp.n != 2 || len(exp.bad) > 0 || exp.reused() != 1 {
		t.Errorf("%d spans, %d in reused storage (want 2 and 1); wrong attributes %v", exp.n, exp.reused(), exp.bad)
	}
}

// TestASpansContextIsItsParents: the context a span is begun in is the
// span's (trace.SpanFromContext finds it, in contexts derived from it
// too) and otherwise its parent's: values, deadline and cancellation.
func TestASpansContextIsItsParents(t *testing.T) {
	if !refIsContext {
		t.Fatal("trace.SpanFromContext does not find a spanRef: each span costs a context.WithValue (learnSpanKey)")
	}
	p, _ := recorderWith(t, nil)
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	ctx, call := p.StartServer(parent, nil, "call")
	cctx, client := Start(ctx, "client", trace.SpanKindClient)
	derived := context.WithValue(cctx, struct{ k int }{1}, 2)
	if trace.SpanFromContext(ctx) != call.s || trace.SpanFromContext(derived) != client.s || derived.Value(key{}) != "v" {
		t.Errorf("spans %v %v, value %v", trace.SpanFromContext(ctx), trace.SpanFromContext(derived), derived.Value(key{}))
	}
	if _, ok := cctx.Deadline(); ok || cctx.Err() != nil {
		t.Error("a deadline or error the parent has not")
	}
	cancel()
	select {
	case <-derived.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the parent's cancellation did not reach the span's context")
	}
	if !errors.Is(cctx.Err(), context.Canceled) {
		t.Errorf("err %v", cctx.Err())
	}
}

// TestShutdownWhileSpansEnd: spans ending from several goroutines while
// the provider flushes and shuts down (run with -race): every span
// exported has its own attributes, and nothing fails.
func TestShutdownWhileSpansEnd(t *testing.T) {
	exp := newExportLog(false)
	p := newLogged(t, exp, true)
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			for i := range 200 {
				name := strconv.Itoa(g) + "-" + strconv.Itoa(i)
				_, s := p.StartServer(context.Background(), nil, name, attribute.String("a", name))
				s.Set(attribute.String("b", name))
				s.End()
				s.Set(attribute.String("c", "late"))
			}
		})
	}
	wg.Go(func() { _ = p.ForceFlush(context.Background()) })
	wg.Go(func() { _ = p.Shutdown(context.Background()) })
	wg.Wait()
	exp.mu.Lock()
	defer exp.mu.Unlock()
	if len(exp.bad) > 0 || exp.n > 600 {
		t.Errorf("%d spans exported (at most 600); wrong attributes %v", exp.n, exp.bad)
	}
}
