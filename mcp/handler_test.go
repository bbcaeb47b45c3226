package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var sessionRevisions = []string{"2025-11-25", "2025-06-18"}

// An older client initializes, gets a session and the revision it asked for.
func TestInitializeSessionRevisions(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	for _, rev := range sessionRevisions {
		cs := connect(t, srv, "agent:coder", rev, nil)
		if got := cs.InitializeResult().ProtocolVersion; got != rev {
			t.Errorf("negotiated %q, want %q", got, rev)
		}
		if cs.ID() == "" {
			t.Errorf("%s: no Mcp-Session-Id", rev)
		}
		if cs.InitializeResult().Capabilities.Tools == nil || !cs.InitializeResult().Capabilities.Tools.ListChanged {
			t.Errorf("%s: tools capability without listChanged: %+v", rev, cs.InitializeResult().Capabilities)
		}
	}
}

// tools/list shows each caller exactly its grant, on every revision.
func TestToolsListPerCaller(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	want := map[string][]string{
		"agent:coder": {"search", "ask", "get_page", "get_context", "create_feedback"},
		"agent:ops":   {"search", "get_page"},
	}
	for _, rev := range append([]string{""}, sessionRevisions...) {
		for token, tools := range want {
			if got := toolNames(t, connect(t, srv, token, rev, nil)); !slices.Equal(got, tools) {
				t.Errorf("%s as %s: tools %v, want %v", rev, token, got, tools)
			}
		}
	}
}

// The listed definitions carry what a model needs: schemas, titles,
// annotations.
func TestToolDefinitions(t *testing.T) {
	g := newFakeGate()
	g.setGrants("all", "search", "ask", "get_page", "get_context", "create_feedback", "create_improvement_task")
	_, srv := server(t, g, Config{})
	res, err := connect(t, srv, "agent:all", "2025-06-18", nil).ListTools(ctxT(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 6 {
		t.Fatalf("%d tools", len(res.Tools))
	}
	for _, tool := range res.Tools {
		read := !strings.HasPrefix(tool.Name, "create_")
		if tool.Title == "" || tool.Description == "" || tool.Annotations == nil {
			t.Errorf("%s: missing title, description or annotations", tool.Name)
			continue
		}
		if tool.Annotations.ReadOnlyHint != read || !tool.Annotations.IdempotentHint {
			t.Errorf("%s: readOnlyHint %v idempotentHint %v", tool.Name, tool.Annotations.ReadOnlyHint, tool.Annotations.IdempotentHint)
		}
		in := schemaMap(t, tool.InputSchema)
		if in["type"] != "object" || in["additionalProperties"] != false {
			t.Errorf("%s: input schema %v", tool.Name, in)
		}
		out := schemaMap(t, tool.OutputSchema)
		if out["type"] != "object" || out["properties"].(map[string]any)["audit"] == nil {
			t.Errorf("%s: output schema %v", tool.Name, out)
		}
	}
}

func schemaMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// A successful call returns the protocol body as structuredContent and a
// text rendering; the gate gets the session and JSON-RPC ids.
func TestCallSearch(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	cs := connect(t, srv, "agent:coder", "2025-11-25", nil)
	res, err := cs.CallTool(ctxT(t), &mcpsdk.CallToolParams{Name: "search", Arguments: map[string]any{"question": "agent memory"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("isError: %+v", res.Content)
	}
	body := schemaMap(t, res.StructuredContent)
	hits := body["hits"].([]any)
	if len(hits) != 1 || hits[0].(map[string]any)["path"] != "publish/kgent/memory.md" {
		t.Errorf("structuredContent %v", body)
	}
	if txt := res.Content[0].(*mcpsdk.TextContent).Text; !strings.Contains(txt, "Agent memory") {
		t.Errorf("text %q", txt)
	}
	m := g.lastMeta()
	if m.SessionID != cs.ID() || m.RequestID == "" || m.Revision != "2025-11-25" || m.HTTP == nil {
		t.Errorf("meta %+v (session %s)", m, cs.ID())
	}
}

// A denial is a tool result with isError and the protocol code, on both
// kinds of revision.
func TestCallForbiddenScopeIsError(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	for _, rev := range []string{"", "2025-06-18"} {
		cs := connect(t, srv, "agent:coder", rev, nil)
		res, err := cs.CallTool(ctxT(t), &mcpsdk.CallToolParams{Name: "search",
			Arguments: map[string]any{"question": "q", "scope": map[string]any{"projects": []string{"other"}}}})
		if err != nil {
			t.Fatal(err)
		}
		body := schemaMap(t, res.StructuredContent)
		e, _ := body["error"].(map[string]any)
		if !res.IsError || e["code"] != "forbidden_scope" || e["message"] == "" {
			t.Errorf("%q: isError %v body %v", rev, res.IsError, body)
		}
		if txt := res.Content[0].(*mcpsdk.TextContent).Text; !strings.HasPrefix(txt, "forbidden_scope:") {
			t.Errorf("text %q", txt)
		}
	}
}

// A tool hidden from the list still reaches the gate, which refuses it.
func TestHiddenToolRefusedByGate(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	cs := connect(t, srv, "agent:ops", "", nil)
	res, err := cs.CallTool(ctxT(t), &mcpsdk.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "q"}})
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := schemaMap(t, res.StructuredContent)["error"].(map[string]any); !res.IsError || e["code"] != "forbidden_tool" {
		t.Errorf("hidden tool: %+v", res)
	}
	if g.calls.Load() != 1 {
		t.Errorf("gate calls %d", g.calls.Load())
	}
}

// ask: citations become resource_links; progress reaches the client.
func TestAskCitationsAndProgress(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{PagesBaseURL: "https://wiki.example.com"})
	var mu sync.Mutex
	var stages []string
	opts := &mcpsdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcpsdk.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		stages = append(stages, req.Params.Message)
	}}
	for _, rev := range []string{"", "2025-06-18"} {
		stages = nil
		cs := connect(t, srv, "agent:coder", rev, opts)
		params := &mcpsdk.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "redis?"}}
		params.SetProgressToken("p1")
		res, err := cs.CallTool(ctxT(t), params)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 2 {
			t.Fatalf("%q: content %+v", rev, res.Content)
		}
		link, ok := res.Content[1].(*mcpsdk.ResourceLink)
		if !ok || link.URI != "https://wiki.example.com/kgent/memory/" || link.Name != "publish/kgent/memory.md" || !strings.HasPrefix(link.Title, "[1] ") {
			t.Errorf("%q: resource link %+v", rev, res.Content[1])
		}
		if txt := res.Content[0].(*mcpsdk.TextContent).Text; !strings.Contains(txt, "[1] Agent memory") {
			t.Errorf("%q: text %q", rev, txt)
		}
		if a := schemaMap(t, res.StructuredContent); a["confidence"] != "high" {
			t.Errorf("%q: answer %v", rev, a)
		}
		waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(stages) == 2 })
		if stages[0] != "retrieving" || stages[1] != "generating" {
			t.Errorf("%q: progress %v", rev, stages)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
