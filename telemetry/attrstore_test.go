package telemetry

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"unsafe"

	"go.opentelemetry.io/otel/attribute"
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
// (workload: every value is the span's name) and no late one.
func (e *exportLog) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range spans {
		e.n++
		attrs := s.Attributes()
		for _, kv := range attrs {
			if kv.Value.AsString() != s.Name() {
				e.bad = append(e.bad, fmt.Sprintf("span %s has %s=%s", s.Name(), kv.Key, kv.Value.Emit()))
			}
		}
		if len(attrs) == 0 {
			e.bad = append(e.bad, "span "+s.Name()+" has no attribute")
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

// TestAnEndedSpanLeavesItsReusedStorageAlone: a span held in a context
// after its export (its storage now another span's) keeps its identity
// and records nothing, and writing to it does not reach the span that
// has its storage.
func TestAnEndedSpanLeavesItsReusedStorageAlone(t *testing.T) {
	exp := newExportLog(false)
	p := newLogged(t, exp, true)
	oldCtx, old := p.StartServer(context.Background(), nil, "old", attribute.String("a", "old"))
	old.End()
	if err := p.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, next := p.StartServer(context.Background(), nil, "next", attribute.String("a", "next"))
	raw := trace.SpanFromContext(oldCtx)
	old.Set(attribute.String("b", "late"))
	raw.SetAttributes(attribute.String("c", "late"))
	raw.End()
	if raw.IsRecording() || raw.SpanContext().SpanID() == next.s.SpanContext().SpanID() || old.TraceID() == next.TraceID() {
		t.Errorf("the old span: recording %v, its ids %v, the next span's %v", raw.IsRecording(), raw.SpanContext(), next.s.SpanContext())
	}
	next.End()
	if err := p.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if exp.n != 2 || len(exp.bad) > 0 || exp.reused() != 1 {
		t.Errorf("%d spans, %d in reused storage (want 2 and 1); wrong attributes %v", exp.n, exp.reused(), exp.bad)
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
