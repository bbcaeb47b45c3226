package telemetry

import (
	"reflect"
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
)

// recSpan is what the recorder records of a span: one struct, with
// storage for its attributes sized by what the span starts with, that a
// span grows out of only past its size. The gate hands out a spanRef
// for it (spanref.go), never the record itself: when the exporter keeps
// nothing (Options.ExportCopies), an exported record and its storage are
// reused for a later span (spanStore), and a ref to the span it was
// tells by its generation that it is stale. A key set again and the
// count limit are dealt with as attributes are set (set).
//
// A span may be used from several goroutines (a streamed answer ends its
// model call's span on another), so what changes is under mu, and only
// while the span records (state, checked under mu); after End nothing
// changes but what finish does, on the batch goroutine, which reads it
// without the lock, and then spanStore.put, which readies it for reuse.
//
// An ended record is itself the sdktrace.ReadOnlySpan the exporters take
// (its methods are below, each a field): a copy for export
// (tracetest.SpanStub.Snapshot) would be one more allocation of 400
// bytes a span. The embedded ReadOnlySpan is nil and only supplies the
// interface's unexported method, as the SDK's own tracetest snapshot
// does; TestRecSpanImplementsReadOnlySpan calls every exported method,
// so an SDK that adds one fails that test, not an export.
type recSpan struct {
	sdktrace.ReadOnlySpan

	r     *spanRecorder // the recorder whose store it is in, for good
	mu    sync.Mutex
	state atomic.Uint64 // generation<<1 | 1 when not recording (ended, or not yet begun)
	recData
}

// recData is a record's fields that a reuse clears (spanStore.put).
type recData struct {
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
	children int32
	kind     uint8 // trace.SpanKind
	status   uint8 // codes.Code
	many     bool  // attributes past dedupeScan: de-duplicated in bulk
	tpUsed   bool  // its ref's traceparent storage is written (claimTraceparent)
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

// setStatus sets the status as the SDK does (under mu): Ok is final,
// Unset changes nothing, and only Error keeps a description.
func (s *recSpan) setStatus(code codes.Code, description string) {
	if codes.Code(s.status) > code {
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

// addEvent records an event (under mu); past the event limit the oldest
// goes.
func (s *recSpan) addEvent(e sdktrace.Event) {
	m := s.extra()
	limit := s.r.limits.events
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

// addLink links the span to another (under mu); past the link limit
// the oldest goes.
func (s *recSpan) addLink(l trace.Link) {
	m := s.extra()
	limit := s.r.limits.links
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

// typeName is the package-qualified name of v's type, as the SDK gives it.
func typeName(v any) string {
	t := reflect.TypeOf(v)
	if t.PkgPath() == "" && t.Name() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
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
	lim := s.r.limits
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

func (s *recSpan) SpanContext() trace.SpanContext { return s.sc }
func (s *recSpan) SpanKind() trace.SpanKind       { return trace.SpanKind(s.kind) }

func (s *recSpan) StartTime() time.Time             { return s.start }
func (s *recSpan) EndTime() time.Time               { return s.start.Add(s.dur) }
func (s *recSpan) Attributes() []attribute.KeyValue { return s.attrs }
func (s *recSpan) DroppedAttributes() int           { return int(s.dropped) }
func (s *recSpan) ChildSpanCount() int              { return int(s.children) }
func (s *recSpan) Resource() *resource.Resource     { return s.r.res }

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
