package telemetry

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unsafe"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// StartServer begins the server span of one gate call, named name
// ("POST /agent/tools/ask", "tools/call ask"). Its parent is the span
// already in ctx when Caddy's tracing directive made one, else the W3C
// traceparent (and tracestate) the caller sent in header, else none: a
// new trace. With tracing off (nil p) and no span in ctx, it returns ctx
// unchanged and a zero Span, without reading the header.
func (p *Provider) StartServer(ctx context.Context, header http.Header, name string, attrs ...attribute.KeyValue) (context.Context, Span) {
	if p == nil {
		ctx, s := Start(ctx, name, trace.SpanKindServer)
		if !s.Recording() {
			return ctx, s
		}
		return asCall(ctx, s.s, attrs)
	}
	var s trace.Span
	if !trace.SpanContextFromContext(ctx).IsValid() {
		if remote := remoteParent(header); remote.IsValid() {
			ctx, s = p.tracer.beginRemote(ctx, remote, name, len(attrs))
		}
	}
	if s == nil { // no remote parent: ctx's span, if any
		s = p.tracer.begin(ctx, name, trace.SpanKindServer, nil, len(attrs), nil)
		ctx = contextWith(ctx, s)
	}
	rs, ok := s.(*spanRef)
	if !ok { // the sampler dropped it: no stage or backend span either
		return ctx, Span{}
	}
	rs.add(attrs)
	return ctx, Span{s: rs}
}

// serverKind is the option a server span starts with, made once.
var serverKind = trace.WithSpanKind(trace.SpanKindServer)

// Active reports whether a call under ctx would be traced: this gate's
// tracer is on, or Caddy's tracing started a recording span. A caller
// checks it before building a server span's attributes, so an untraced
// call allocates nothing.
func (p *Provider) Active(ctx context.Context) bool {
	return p != nil || trace.SpanFromContext(ctx).IsRecording()
}

// HTTPServerAttrs are the HTTP semantic conventions' request attributes
// of a server span: method, route (the gate's endpoint pattern, low
// cardinality) and path.
func HTTPServerAttrs(r *http.Request, route string) []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("http.request.method", r.Method),
		attribute.String("http.route", route),
		attribute.String("url.path", r.URL.Path),
	}
}

// Transport wraps base so that each backend request made under a
// recording span carries a W3C traceparent, so RAGFlow's and
// Meilisearch's logs and traces join the caller's trace. Under a client
// span (the retrieval's, the model call's: they stand for the backend
// call) the request carries that span's context and the span gets the
// response status; under any other span the request gets its own client
// span (HTTP semantic conventions: method, server address and port, path,
// status). A request under no recording span goes to base untouched.
func Transport(base http.RoundTripper) http.RoundTripper {
	return &transport{base: base}
}

type transport struct {
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	parent := trace.SpanFromContext(req.Context())
	if !parent.IsRecording() {
		return t.base.RoundTrip(req)
	}
	if isClient(parent) {
		return t.underClient(req, Span{s: parent})
	}
	ctx, span := Start(req.Context(), req.Method, trace.SpanKindClient, clientAttrs(req)...)
	req = withTraceContext(req.WithContext(ctx), trace.SpanContextFromContext(ctx))
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		span.Fail(err, "transport")
		span.End()
		return nil, err
	}
	span.Set(attribute.Int("http.response.status_code", resp.StatusCode))
	if resp.StatusCode >= 500 {
		span.Fail(errStatus(resp.StatusCode), strconv.Itoa(resp.StatusCode))
	}
	resp.Body = &endOnClose{ReadCloser: resp.Body, span: span}
	return resp, nil
}

// underClient sends req under the client span that stands for it; the
// span's owner ends it.
func (t *transport) underClient(req *http.Request, span Span) (*http.Response, error) {
	if !carries(req.Header, span.s) {
		req = withTraceContext(req, span.s.SpanContext())
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil {
		span.Set(attribute.Int("http.response.status_code", resp.StatusCode))
	}
	return resp, err
}

// tracedRequest is a backend request as sent: a shallow copy of the
// caller's (a RoundTripper must not modify the request it is given) with
// a header map of its own, and the storage of its traceparent value, in
// one allocation.
type tracedRequest struct {
	req   http.Request
	value traceparentValue
}

// withTraceContext is a copy of req carrying sc as its W3C traceparent
// (and tracestate), as propagation.TraceContext writes them (version 00,
// the sampled and random flags). The header values are shared with req's,
// not copied: only the trace context's keys are written. Cheaper than
// req.Clone, which copies every value, the URL and the trailer, and than
// the propagator, whose value and the value's slice are an allocation
// each.
func withTraceContext(req *http.Request, sc trace.SpanContext) *http.Request {
	t := new(tracedRequest)
	t.req = *req // as req.WithContext copies it, keeping its context
	h := make(http.Header, len(req.Header)+2)
	for k, v := range req.Header {
		h[k] = v
	}
	t.req.Header = h
	if sc.IsValid() {
		setTraceContext(h, sc, &t.value)
	}
	return &t.req
}

// Inject writes into req's own header the W3C trace context of the
// client span req's context is under (the retrieval's, the model
// call's). The request's builder calls it (backend.SetCallHeaders), so
// Transport can send the request as it is: a RoundTripper may not write
// the request it is given, and the copy it makes otherwise, a request and
// a header map, was a sixth of tracing's CPU per ask (bench/README.md,
// What tracing costs). Under any other span, or none, it writes nothing
// and Transport does what it did.
func Inject(req *http.Request) {
	s := trace.SpanFromContext(req.Context())
	if !s.IsRecording() || !isClient(s) {
		return
	}
	sc := s.SpanContext()
	if !sc.IsValid() {
		return
	}
	var v *traceparentValue
	if r, ok := s.(*spanRef); ok {
		v = r.claimTraceparent()
	}
	if v == nil {
		v = new(traceparentValue)
	}
	setTraceContext(req.Header, sc, v)
}

// traceparentValue is a traceparent header value and its storage, one
// allocation.
type traceparentValue struct {
	value [1]string
	buf   [55]byte
}

// setTraceContext writes sc as h's traceparent (and tracestate) into v's
// storage.
func setTraceContext(h http.Header, sc trace.SpanContext, v *traceparentValue) {
	formatTraceparent(&v.buf, sc)
	// The value is the buffer beside it, written once, here.
	v.value[0] = unsafe.String(&v.buf[0], len(v.buf))
	h["Traceparent"] = v.value[:]
	if ts := sc.TraceState(); ts.Len() > 0 {
		h["Tracestate"] = []string{ts.String()}
	}
}

// formatTraceparent writes sc's traceparent into buf.
func formatTraceparent(buf *[55]byte, sc trace.SpanContext) {
	tid, sid := sc.TraceID(), sc.SpanID()
	b := append(buf[:0], "00-"...)
	b = hex.AppendEncode(b, tid[:])
	b = append(b, '-')
	b = hex.AppendEncode(b, sid[:])
	b = append(b, '-')
	hex.AppendEncode(b, []byte{byte(sc.TraceFlags() & (trace.FlagsSampled | trace.FlagsRandom))})
}

// carries reports whether h already holds the trace context of s (a
// client span), as Inject writes it: its own traceparent storage
// (claimTraceparent), else the same value.
func carries(h http.Header, s trace.Span) bool {
	v, sc := h["Traceparent"], s.SpanContext()
	if len(v) != 1 || len(v[0]) != 55 || !sc.IsValid() {
		return false
	}
	if sc.TraceState().Len() > 0 && len(h["Tracestate"]) != 1 {
		return false
	}
	if r, ok := s.(*spanRef); ok && r.tp != nil && unsafe.StringData(v[0]) == &r.tp.buf[0] {
		return true // written once, with this span's context
	}
	var want [55]byte
	formatTraceparent(&want, sc)
	return string(want[:]) == v[0]
}

// remoteParent is the span context of the W3C traceparent (and
// tracestate) in header, read as propagation.TraceContext reads it
// (TestRemoteParentReadsAsThePropagator holds it to that), or none. The
// propagator gives it only inside a new context, two allocations
// (beginRemote makes the span's context itself).
func remoteParent(header http.Header) trace.SpanContext {
	tp := header["Traceparent"] // as an http.Server stores it: canonical
	if len(tp) == 0 {
		return trace.SpanContext{}
	}
	h := tp[0]
	var version, flags [1]byte
	var scc trace.SpanContextConfig
	if !hexPart(version[:], &h) || version[0] > 254 || !hexPart(scc.TraceID[:], &h) ||
		!hexPart(scc.SpanID[:], &h) || !hexPart(flags[:], &h) {
		return trace.SpanContext{}
	}
	if version[0] == 0 && (h != "" || flags[0] > 3) { // version 00 has no more fields, nor other flags
		return trace.SpanContext{}
	}
	scc.TraceFlags = trace.TraceFlags(flags[0]) & (trace.FlagsSampled | trace.FlagsRandom)
	if ts := header["Tracestate"]; len(ts) > 0 {
		scc.TraceState, _ = trace.ParseTraceState(ts[0]) // a bad tracestate is none, the traceparent still counts
	}
	scc.Remote = true
	if sc := trace.NewSpanContext(scc); sc.IsValid() { // no zero id
		return sc
	}
	return trace.SpanContext{}
}

// hexPart decodes the field of *h up to the next '-' (which it consumes)
// into dst: exactly twice len(dst) lower-case hex digits.
func hexPart(dst []byte, h *string) bool {
	part, rest, _ := strings.Cut(*h, "-")
	*h = rest
	if len(part) != 2*len(dst) {
		return false
	}
	for i := range dst {
		hi, ok1 := fromHex(part[2*i])
		lo, ok2 := fromHex(part[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		dst[i] = hi<<4 | lo
	}
	return true
}

// fromHex is the value of a lower-case hex digit.
func fromHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// isClient reports whether s is a client span (the recorder's spans and
// the SDK's say).
func isClient(s trace.Span) bool {
	if r, ok := s.(*spanRef); ok {
		return r.isClient()
	}
	k, ok := s.(interface{ SpanKind() trace.SpanKind })
	return ok && k.SpanKind() == trace.SpanKindClient
}

// clientAttrs are a client span's request attributes. Only the path: a
// query may hold a question (Meilisearch's q is in the body, but a GET
// could carry one).
func clientAttrs(req *http.Request) []attribute.KeyValue {
	host, port := req.URL.Hostname(), req.URL.Port()
	if port == "" {
		port = "80"
		if req.URL.Scheme == "https" {
			port = "443"
		}
	}
	n, _ := strconv.Atoi(port)
	return []attribute.KeyValue{
		attribute.String("http.request.method", req.Method),
		attribute.String("server.address", host),
		attribute.Int("server.port", n),
		attribute.String("url.path", req.URL.Path),
	}
}

type errStatus int

func (e errStatus) Error() string { return "HTTP " + strconv.Itoa(int(e)) }

// endOnClose ends the client span when the body is closed: a streamed
// completion's span covers the whole stream, not only its headers.
type endOnClose struct {
	io.ReadCloser
	span Span
	done bool
}

func (b *endOnClose) Close() error {
	err := b.ReadCloser.Close()
	if !b.done {
		b.done = true
		b.span.End()
	}
	return err
}

// CloseIdleConnections passes http.Client.CloseIdleConnections on to the
// wrapped transport.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
