package telemetry

import (
	"reflect"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// recSpan is a span the recorder records: one struct, and storage for
// its attributes from the recorder's (attrStore), sized by what it
// starts with, that a span grows out of only past its size. A key set
// again and the count limit are dealt with as attributes are set (set).
// It may be used from several
// goroutines (a streamed answer ends its model call's span on another),
// so what changes is under mu; after End nothing changes but what finish
// does, on the batch goroutine, which reads it without the lock, and
// the storage its attributes were in, taken back after the export
// (release).
//
// An ended span is itself the sdktrace.ReadOnlySpan the exporters take
// (its methods are below, each a field): a copy for export
// (tracetest.SpanStub.Snapshot) would be one more allocation of 400
// bytes a span. The embedded ReadOnlySpan is nil and only supplies the
// interface's unexported method, as the SDK's own tracetest snapshot
// does; TestRecSpanImplementsReadOnlySpan calls every exported method,
// so an SDK that adds one fails that test, not an export.
type recSpan struct {
	embedded.Span
	sdktrace.ReadOnlySpan

	tracer   *tracer
	sc       trace.SpanContext
	start    time.Time
	dur      time.Duration // from start to end
	name     string
	attrs    []attribute.KeyValue
	seen     uint64       // the keyBit of each key in attrs
	more     *spanMore    // status description, events and links: rare
	parentID trace.SpanID // the parent is of the same trace (Parent)
	dropped  int32        // attributes dropped
	children atomic.Int32
	mu       sync.Mutex
	done     atomic.Bool // ended: IsRecording without the lock
	kind     uint8       // trace.SpanKind
	status   uint8       // codes.Code
	ended    bool
	many     bool // attributes past dedupeScan: de-duplicated in bulk
	// The parent's flags and whether it came from another process.
	parentFlags  trace.TraceFlags
	parentRemote bool
}

// spanMore is what few spans have: a failure's description, events (an
// error recorded) and links (an MCP request's to its HTTP context).
type spanMore struct {
	description                 string
	events                      []sdktrace.Event
	links                       []sdktrace.Link
	droppedEvents, droppedLinks int
}

// init readies a new span of t, with storage for attrs attributes (the
// recorder's: attrStore).
func (s *recSpan) init(t *tracer, kind trace.SpanKind, attrs int) {
	s.tracer, s.kind = t, uint8(trace.ValidateSpanKind(kind))
	s.attrs = t.r.store.get(kind == trace.SpanKindServer, attrs)
}

// release gives the span's attribute storage back, after its export
// (attrStore.put): the span no longer has attributes.
func (s *recSpan) release() []attribute.KeyValue {
	buf := s.attrs
	s.attrs = nil
	return buf
}

// add copies kv into the span (kv does not escape); nothing after End.
func (s *recSpan) add(kv []attribute.KeyValue) {
	if len(kv) == 0 {
		return
	}
	s.mu.Lock()
	if !s.ended {
		limit := s.tracer.r.limits.attrs
		for i := range kv {
			s.set(&kv[i], limit)
		}
	}
	s.mu.Unlock()
}

// set keeps kv by the SDK's rule (under mu): a key already kept takes
// the new value where it is, a new key is appended while the span is
// under the attribute limit and dropped past it, an invalid one dropped,
// each drop counted. A span's attributes so stay distinct, and its export
// has nothing to de-duplicate (moving attributes costs write barriers
// while the GC runs). A key whose hash bit (keyBit) is new is not a
// duplicate: most keys skip the comparisons. Past dedupeScan attributes
// (never the gate's own spans) they are appended as they come and
// de-duplicated in bulk (dedupe), when there are more than twice the
// limit and at export.
func (s *recSpan) set(kv *attribute.KeyValue, limit int) {
	if s.many || len(s.attrs) >= dedupeScan {
		s.many = true
		s.attrs = append(s.attrs, *kv)
		if limit >= 0 && len(s.attrs) > max(2*limit, 64) {
			var n int
			s.attrs, n = dedupe(s.attrs, limit)
			s.dropped += int32(n)
		}
		return
	}
	if !kv.Valid() {
		s.dropped++
		return
	}
	bit := keyBit(kv.Key)
	if s.seen&bit != 0 {
		if i := index(s.attrs, kv.Key); i >= 0 {
			s.attrs[i].Value = kv.Value
			return
		}
	}
	if limit >= 0 && len(s.attrs) >= limit {
		s.dropped++
		return
	}
	s.seen |= bit
	s.attrs = append(s.attrs, *kv)
}

// SetAttributes sets attributes; a key set again takes the last value.
func (s *recSpan) SetAttributes(kv ...attribute.KeyValue) { s.add(kv) }

// End ends the span (at the time an option gives, else now, measured on
// the monotonic clock from its start) and queues it for export when it
// is sampled. A second End does nothing.
func (s *recSpan) End(opts ...trace.SpanEndOption) {
	end := s.start.Add(time.Since(s.start))
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	if len(opts) > 0 {
		if c := trace.NewSpanEndConfig(opts...); !c.Timestamp().IsZero() {
			end = c.Timestamp()
		}
	}
	s.ended, s.dur = true, end.Sub(s.start)
	s.done.Store(true)
	s.mu.Unlock()
	if s.sc.IsSampled() {
		s.tracer.r.batch.enqueue(s)
	}
}

// IsRecording reports whether the span still records (has not ended).
func (s *recSpan) IsRecording() bool { return !s.done.Load() }

// SpanContext is the span's identity.
func (s *recSpan) SpanContext() trace.SpanContext { return s.sc }

// SpanKind is the span's kind (telemetry.Transport asks a parent's).
func (s *recSpan) SpanKind() trace.SpanKind { return trace.SpanKind(s.kind) }

// TracerProvider is the recorder, so children are recorded alike.
func (s *recSpan) TracerProvider() trace.TracerProvider { return s.tracer.r }

// SetStatus sets the status as the SDK does: Ok is final, Unset changes
// nothing, and only Error keeps a description.
func (s *recSpan) SetStatus(code codes.Code, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended || codes.Code(s.status) > code {
		return
	}
	s.status = uint8(code)
	switch {
	case code == codes.Error && description != "":
		s.extra().description = description
	case s.more != nil:
		s.more.description = ""
	}
}

// SetName renames the span.
func (s *recSpan) SetName(name string) {
	s.mu.Lock()
	if !s.ended {
		s.name = name
	}
	s.mu.Unlock()
}

// AddEvent records an event; past the event limit the oldest goes.
func (s *recSpan) AddEvent(name string, opts ...trace.EventOption) {
	if s.done.Load() {
		return
	}
	c := trace.NewEventConfig(opts...)
	s.addEvent(sdktrace.Event{Name: name, Attributes: slices.Clone(c.Attributes()), Time: c.Timestamp()})
}

func (s *recSpan) addEvent(e sdktrace.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	m := s.extra()
	limit := s.tracer.r.limits.events
	if limit == 0 {
		m.droppedEvents++
		return
	}
	if limit > 0 && len(m.events) >= limit {
		m.events = append(m.events[:0], m.events[1:]...)
		m.droppedEvents++
	}
	m.events = append(m.events, e)
}

// RecordError records err as an exception event (the semantic
// conventions' exception.type and exception.message, and
// exception.stacktrace when asked for), as the SDK does.
func (s *recSpan) RecordError(err error, opts ...trace.EventOption) {
	if err == nil || s.done.Load() {
		return
	}
	c := trace.NewEventConfig(opts...)
	attrs := append(slices.Clone(c.Attributes()),
		attribute.String("exception.type", typeName(err)), attribute.String("exception.message", err.Error()))
	if c.StackTrace() {
		attrs = append(attrs, attribute.String("exception.stacktrace", string(debug.Stack())))
	}
	s.addEvent(sdktrace.Event{Name: "exception", Attributes: attrs, Time: c.Timestamp()})
}

// typeName is the package-qualified name of v's type, as the SDK gives it.
func typeName(v any) string {
	t := reflect.TypeOf(v)
	if t.PkgPath() == "" && t.Name() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}

// AddLink links the span to another; an empty link is ignored and past
// the link limit the oldest goes.
func (s *recSpan) AddLink(l trace.Link) {
	if !l.SpanContext.IsValid() && len(l.Attributes) == 0 && l.SpanContext.TraceState().Len() == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	m := s.extra()
	limit := s.tracer.r.limits.links
	if limit == 0 {
		m.droppedLinks++
		return
	}
	if limit > 0 && len(m.links) >= limit {
		m.links = append(m.links[:0], m.links[1:]...)
		m.droppedLinks++
	}
	m.links = append(m.links, sdktrace.Link{SpanContext: l.SpanContext, Attributes: slices.Clone(l.Attributes)})
}

// extra is s.more, made on first use (under mu).
func (s *recSpan) extra() *spanMore {
	if s.more == nil {
		s.more = new(spanMore)
	}
	return s.more
}

// finish readies an ended span for export, once, on the batch
// goroutine: it drops duplicate keys when set did not (many), and cuts
// long values, in place.
func (s *recSpan) finish() {
	lim := s.tracer.r.limits
	if s.many {
		var n int
		s.attrs, n = dedupe(s.attrs, lim.attrs)
		s.dropped += int32(n)
	}
	if lim.valueLen >= 0 {
		truncateValues(s.attrs, lim.valueLen)
	}
}

// The sdktrace.ReadOnlySpan methods, for the exporters, once finished.

func (s *recSpan) Name() string { return s.name }

func (s *recSpan) StartTime() time.Time             { return s.start }
func (s *recSpan) EndTime() time.Time               { return s.start.Add(s.dur) }
func (s *recSpan) Attributes() []attribute.KeyValue { return s.attrs }
func (s *recSpan) DroppedAttributes() int           { return int(s.dropped) }
func (s *recSpan) ChildSpanCount() int              { return int(s.children.Load()) }
func (s *recSpan) Resource() *resource.Resource     { return s.tracer.r.res }

func (s *recSpan) InstrumentationScope() instrumentation.Scope { return s.tracer.scope }

// InstrumentationLibrary is the scope under its deprecated name, which
// sdktrace.ReadOnlySpan still has.
//
//lint:ignore SA1019 the interface the exporters take still has this method
func (s *recSpan) InstrumentationLibrary() instrumentation.Library { return s.tracer.scope }

// Parent is the parent's context: the same trace, its span id and
// flags, and whether it was remote (what the exporters read; a remote
// parent's tracestate is the span's own, in SpanContext).
func (s *recSpan) Parent() trace.SpanContext {
	if !s.parentID.IsValid() {
		return trace.SpanContext{}
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: s.sc.TraceID(), SpanID: s.parentID,
		TraceFlags: s.parentFlags, Remote: s.parentRemote})
}

func (s *recSpan) Status() sdktrace.Status {
	st := sdktrace.Status{Code: codes.Code(s.status)}
	if st.Code == codes.Error && s.more != nil {
		st.Description = s.more.description
	}
	return st
}

func (s *recSpan) Links() []sdktrace.Link {
	if s.more == nil {
		return nil
	}
	return s.more.links
}

func (s *recSpan) Events() []sdktrace.Event {
	if s.more == nil {
		return nil
	}
	return s.more.events
}

func (s *recSpan) DroppedLinks() int {
	if s.more == nil {
		return 0
	}
	return s.more.droppedLinks
}

func (s *recSpan) DroppedEvents() int {
	if s.more == nil {
		return 0
	}
	return s.more.droppedEvents
}

// dedupeScan is the most attributes set de-duplicates as they come and
// dedupe compares pairwise; more (only when a span sets far more than
// the gate's) are appended and de-duplicated through a map.
const dedupeScan = 48

// dedupe keeps in kvs, in place, the first limit distinct valid keys (all
// of them when limit is negative) in the order they were first set, each
// with the value set last: the SDK's rule (a key past the limit is
// dropped, a key already kept is updated). It reports how many
// attributes it dropped.
func dedupe(kvs []attribute.KeyValue, limit int) ([]attribute.KeyValue, int) {
	if len(kvs) > dedupeScan {
		return dedupeMap(kvs, limit)
	}
	// Most spans have no duplicate: find the first attribute to drop or
	// move before moving anything (a write of a KeyValue costs write
	// barriers while the GC runs).
	n, seen := 0, uint64(0)
	for n < len(kvs) && kvs[n].Valid() && (limit < 0 || n < limit) {
		// A key whose hash bit is new is not a duplicate: most keys
		// skip the comparisons with the keys before them.
		bit := keyBit(kvs[n].Key)
		if seen&bit != 0 && index(kvs[:n], kvs[n].Key) >= 0 {
			break
		}
		seen |= bit
		n++
	}
	if n == len(kvs) {
		return kvs, 0
	}
	dropped := 0
	for j := n; j < len(kvs); j++ {
		kv := &kvs[j]
		if !kv.Valid() {
			dropped++
			continue
		}
		i, bit := -1, keyBit(kv.Key)
		if seen&bit != 0 {
			i = index(kvs[:n], kv.Key)
		}
		switch {
		case i >= 0:
			kvs[i].Value = kv.Value
		case limit >= 0 && n >= limit:
			dropped++
		default:
			seen |= bit
			kvs[n] = *kv
			n++
		}
	}
	clear(kvs[n:])
	return kvs[:n], dropped
}

// keyBit is one of 64 bits chosen by a cheap hash of k (its length and
// two of its bytes; Valid keys are not empty).
func keyBit(k attribute.Key) uint64 {
	n := len(k)
	return 1 << ((uint(n)*7 + uint(k[n-1])*3 + uint(k[n/2])) & 63)
}

// index is the position of key in kvs, or -1.
func index(kvs []attribute.KeyValue, key attribute.Key) int {
	for i := range kvs {
		if kvs[i].Key == key {
			return i
		}
	}
	return -1
}

// dedupeMap is dedupe for many attributes.
func dedupeMap(kvs []attribute.KeyValue, limit int) ([]attribute.KeyValue, int) {
	at := make(map[attribute.Key]int, len(kvs))
	n, dropped := 0, 0
	for _, kv := range kvs {
		if !kv.Valid() {
			dropped++
			continue
		}
		if i, ok := at[kv.Key]; ok {
			kvs[i].Value = kv.Value
			continue
		}
		if limit >= 0 && n >= limit {
			dropped++
			continue
		}
		at[kv.Key] = n
		kvs[n] = kv
		n++
	}
	clear(kvs[n:])
	return kvs[:n], dropped
}

// truncateValues cuts string values (and the strings of string slices)
// to at most limit characters, as the SDK's value length limit does.
func truncateValues(kvs []attribute.KeyValue, limit int) {
	for i, kv := range kvs {
		switch kv.Value.Type() {
		case attribute.STRING:
			if v := kv.Value.AsString(); len(v) > limit {
				kvs[i].Value = attribute.StringValue(truncate(v, limit))
			}
		case attribute.STRINGSLICE:
			vs := kv.Value.AsStringSlice()
			changed := false
			for j, v := range vs {
				if len(v) > limit {
					vs[j], changed = truncate(v, limit), true
				}
			}
			if changed {
				kvs[i].Value = attribute.StringSliceValue(vs)
			}
		}
	}
}

// truncate is s cut to at most limit characters (runes).
func truncate(s string, limit int) string {
	n := 0
	for i := range s {
		if n == limit {
			return s[:i]
		}
		n++
	}
	return s
}
