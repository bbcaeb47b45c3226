package telemetry

import (
	"context"
	"net/http"
	"testing"
)

const (
	metaTrace, metaSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	hdrTrace, hdrSpan   = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
)

// TestMessageContextWinsOverTheHTTPHeader: an MCP request whose
// params._meta holds a traceparent joins that trace, even when its HTTP
// request carried another one, and links to the HTTP one; without
// _meta, or with a malformed one, the header is the parent as before.
func TestMessageContextWinsOverTheHTTPHeader(t *testing.T) {
	p, exp := recorder(t, false)
	hdr := http.Header{"Traceparent": {"00-" + hdrTrace + "-" + hdrSpan + "-01"}}
	meta := MessageContext{TraceParent: "00-" + metaTrace + "-" + metaSpan + "-01", TraceState: "vendor=1"}

	_, s := p.StartMessage(context.Background(), hdr, meta, "tools/call ask")
	s.End()
	_, s = p.StartMessage(context.Background(), hdr, MessageContext{}, "tools/list")
	s.End()
	_, s = p.StartMessage(context.Background(), hdr, MessageContext{TraceParent: "00-zz-" + metaSpan + "-01"}, "initialize")
	s.End()
	_, s = p.StartMessage(context.Background(), nil, meta, "ping")
	s.End()

	spans := flushed(t, p, exp)
	if len(spans) != 4 {
		t.Fatalf("%d spans, want 4", len(spans))
	}
	withMeta := spans[0]
	if withMeta.SpanContext.TraceID().String() != metaTrace || withMeta.Parent.SpanID().String() != metaSpan {
		t.Errorf("with _meta and a header: trace %s parent %s, want _meta's %s %s", withMeta.SpanContext.TraceID(), withMeta.Parent.SpanID(), metaTrace, metaSpan)
	}
	if withMeta.SpanContext.TraceState().Get("vendor") != "1" {
		t.Errorf("tracestate of _meta lost: %q", withMeta.SpanContext.TraceState().String())
	}
	if len(withMeta.Links) != 1 || withMeta.Links[0].SpanContext.TraceID().String() != hdrTrace || withMeta.Links[0].SpanContext.SpanID().String() != hdrSpan {
		t.Errorf("links %v, want one to the HTTP request's context", withMeta.Links)
	}
	for i, s := range spans[1:3] {
		if s.SpanContext.TraceID().String() != hdrTrace || s.Parent.SpanID().String() != hdrSpan || len(s.Links) != 0 {
			t.Errorf("span %d (%s): trace %s parent %s links %d, want the header's and no link", i+1, s.Name, s.SpanContext.TraceID(), s.Parent.SpanID(), len(s.Links))
		}
	}
	if only := spans[3]; only.Parent.SpanID().String() != metaSpan || len(only.Links) != 0 {
		t.Errorf("_meta alone: parent %s links %d", only.Parent.SpanID(), len(only.Links))
	}
}

// TestMessageContextWhenTracingIsOff: off, StartMessage reads nothing and
// records nothing, _meta or not.
func TestMessageContextWhenTracingIsOff(t *testing.T) {
	var p *Provider
	ctx := context.Background()
	ctx2, s := p.StartMessage(ctx, nil, MessageContext{TraceParent: "00-" + metaTrace + "-" + metaSpan + "-01"}, "initialize")
	if ctx2 != ctx || s.Recording() {
		t.Fatal("tracing off recorded an MCP request")
	}
}

func TestMCPRequestNames(t *testing.T) {
	for _, c := range []struct{ method, target, session, name string }{
		{"initialize", "", "", "initialize"},
		{"tools/list", "", "s-1", "tools/list"},
		{"resources/read", "wiki://page/a", "s-1", "resources/read wiki://page/a"},
	} {
		name, attrs := MCPRequest(c.method, c.target, c.session, "3", "2025-11-25")
		if name != c.name {
			t.Errorf("%s: span name %q, want %q", c.method, name, c.name)
		}
		if attr(attrs, "mcp.method.name").AsString() != c.method || attr(attrs, "jsonrpc.request.id").AsString() != "3" ||
			attr(attrs, "mcp.protocol.version").AsString() != "2025-11-25" || attr(attrs, "mcp.session.id").AsString() != c.session {
			t.Errorf("%s: attributes %v", c.method, attrs)
		}
	}
}
