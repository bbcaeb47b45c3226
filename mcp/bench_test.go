package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

// BenchmarkStatelessSearch is the in-process cost of one 2026-07-28
// tools/call search through this package (the fast path, serveFast),
// without the network and with a gate that answers at once;
// BenchmarkStatelessSearchSDK is the same call answered by the SDK, and
// BenchmarkGateOnly is that gate call and the JSON an HTTP route would
// write (as the gateway's writeJSON writes it). The difference is what MCP
// adds per call (bench run M reports it next to run B).
func BenchmarkStatelessSearch(b *testing.B) { benchStateless(b, false, "tools/call") }

func BenchmarkStatelessSearchSDK(b *testing.B) { benchStateless(b, true, "tools/call") }

// BenchmarkStatelessList is one 2026-07-28 tools/list (fast path).
func BenchmarkStatelessList(b *testing.B) { benchStateless(b, false, "tools/list") }

func benchStateless(b *testing.B, sdk bool, method string) {
	h, err := New(Config{Enabled: true}, benchGate(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	h.noFast = sdk
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"question":"agent memory"},` + meta + `}}`
	if method == "tools/list" {
		body = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`
	}
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Authorization", "Bearer agent:coder")
		r.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		r.Header.Set("Mcp-Method", method)
		if method == "tools/call" {
			r.Header.Set("Mcp-Name", "search")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

func BenchmarkGateOnly(b *testing.B) {
	g := benchGate()
	args := json.RawMessage(`{"question":"agent memory"}`)
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("POST", "/agent/tools/search", strings.NewReader(string(args)))
		r.Header.Set("Authorization", "Bearer agent:coder")
		c, _ := g.Authenticate(r)
		out, err := g.Call(context.Background(), c.Principal, "search", args, CallMeta{})
		if err != nil {
			b.Fatal(err)
		}
		writeRouteJSON(httptest.NewRecorder(), out)
	}
}

// writeRouteJSON writes out as the gateway's writeOK does: its body
// (protocol.Result.AppendBody) from a pooled buffer, with its
// Content-Length.
func writeRouteJSON(w http.ResponseWriter, out protocol.Result) {
	rs := getScratch()
	b, _ := out.AppendBody(rs.b)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	rs.release(b)
}

// benchGate answers search with what bench run B returns: six hits of the
// stand-in's size (about 2.9 KB as the route's JSON), so the benchmarks
// weigh the rendering of a real result, not of a one-hit toy.
func benchGate() *fakeGate {
	g := newFakeGate()
	g.searchHits = 6
	return g
}

// benchHits are n hits shaped like the stand-in's: a page path and URL, a
// title, and a snippet cropped to about 30 words.
func benchHits(n int) []protocol.SearchHit {
	hits := make([]protocol.SearchHit, n)
	for i := range hits {
		page := fmt.Sprintf("agent-memory-%d", i)
		hits[i] = protocol.SearchHit{
			Path:  "publish/system/components/kunora-kgent/guides/" + page + ".md",
			URL:   "/kunora-kgent/main/guides/" + page + "/",
			Title: fmt.Sprintf("Agent memory, part %d: stores and retention", i),
			Snippet: "…an agent keeps its working memory in the session store; long-term memory goes to the " +
				"vector index with a retention policy, so that a restarted agent can recall what it learned <em>memory</em>…",
			Score: 0.9 - float64(i)/20, SourceProject: "kunora-kgent", Version: "main",
		}
	}
	return hits
}

// BenchmarkSessionSearch is the same call on an open 2025-11-25 session.
func BenchmarkSessionSearch(b *testing.B) {
	h, err := New(Config{Enabled: true}, benchGate(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	send := func(body, session string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Authorization", "Bearer agent:coder")
		if session != "" {
			r.Header.Set("Mcp-Session-Id", session)
			r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`, "")
	id := w.Header().Get("Mcp-Session-Id")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, id)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"question":"agent memory"}}}`
	b.ReportAllocs()
	for b.Loop() {
		if w := send(body, id); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "structuredContent") {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

// BenchmarkSearchReply is the fast path's answer to a six-hit search
// without the gate, the front or the request: structuredContent, the text
// rendering and the JSON-RPC response written into a recorder.
func BenchmarkSearchReply(b *testing.B) {
	h, err := New(Config{Enabled: true}, benchGate(), nil)
	if err != nil {
		b.Fatal(err)
	}
	out := &protocol.SearchResult{Total: 6, Hits: benchHits(6)}
	b.ReportAllocs()
	for b.Loop() {
		o, err := h.buildOutput(out)
		if err != nil {
			b.Fatal(err)
		}
		h.writeCallResult(httptest.NewRecorder(), []byte("1"), o, true)
		o.release()
	}
}
