package mcp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/wikigate/wikigate/protocol"
)

func resolve(t *testing.T, raw json.RawMessage) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func instance(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// What the HTTP routes return validates against the output schemas, and so
// does the isError shape; the input schemas accept the README's examples
// and refuse what the gate refuses.
func TestSchemasMatchTheProtocol(t *testing.T) {
	audit := protocol.Audit{RequestID: "r", Caller: "agent:a", Scope: "s"}
	feedback := map[string]any{"record": map[string]any{"id": "f1", "type": "feedback", "eventType": "qa_no_answer", "dedupeKey": "k",
		"status": "open", "count": 1, "firstSeenAt": time.Now(), "lastSeenAt": time.Now()}, "created": true, "audit": audit}
	outputs := map[string]any{
		"search":                  protocol.SearchResult{Hits: []protocol.SearchHit{{Path: "p", URL: "/u", Title: "t", Snippet: "s", Score: 1, SourceProject: "x", Version: "main"}}, Total: 1, Audit: audit},
		"get_page":                protocol.PageResult{Pages: []protocol.Page{{Path: "p", URL: "/u", Title: "t", Version: "main", SourceProject: "x", Content: "c"}}, Audit: audit},
		"ask":                     protocol.AnswerResult{Answer: "a [1]", Confidence: "low", Grounding: protocol.Grounding{Status: "ungrounded"}, NoAnswerReason: &protocol.NoAnswerReason{Code: protocol.CodeNoAnswer, Reason: "no_evidence", Message: "m"}, Audit: audit},
		"get_context":             protocol.ContextPack{Question: "q", Items: []protocol.ContextItem{{Path: "p", URL: "/u", Title: "t", ChunkID: "c", Content: "x"}}, MaxTokens: 4000, Audit: audit},
		"create_feedback":         feedback,
		"create_improvement_task": feedback,
	}
	denial := instance(t, errorResult(protocol.NewError(protocol.CodeForbiddenScope, "no")).StructuredContent)
	for _, d := range toolDefs {
		out := resolve(t, d.output)
		if err := out.Validate(instance(t, outputs[d.name])); err != nil {
			t.Errorf("%s result: %v", d.name, err)
		}
		if err := out.Validate(denial); err != nil {
			t.Errorf("%s denial: %v", d.name, err)
		}
		if err := out.Validate(map[string]any{"hits": []any{}}); err == nil {
			t.Errorf("%s accepted an incomplete result", d.name)
		}
	}
	inputs := []struct {
		tool string
		args string
		ok   bool
	}{
		{"search", `{"question":"agent memory","limit":5}`, true},
		{"search", `{"question":"agent memory","limit":51}`, false},
		{"search", `{"limit":5}`, false},
		{"search", `{"question":"q","scope":{"projects":["kunora-gateway"]}}`, true},
		{"search", `{"question":"q","scope":{"project":"x"}}`, false},
		{"get_page", `{"paths":["a.md","b.md"]}`, true},
		// Exactly one of path and paths is the gate's rule, not the schema's
		// (no top-level oneOf: TestNoTopLevelCombinators); the gate refuses
		// both or neither (integration TestMCPGetPageNeedsExactlyOneOf).
		{"get_page", `{"path":"a.md","paths":["b.md"]}`, true},
		{"get_page", `{"path":""}`, false},
		{"get_page", `{"paths":[]}`, false},
		{"ask", `{"question":"How do I use Redis?","requireCitations":false}`, true},
		{"get_context", `{"question":"q","maxTokens":1500}`, true},
		{"get_context", `{"question":"q","maxTokens":12001}`, false},
		{"create_feedback", `{"eventType":"qa_no_answer","question":"payroll?","idempotencyKey":"try-1"}`, true},
		{"create_feedback", `{"eventType":"QA","question":"payroll?"}`, false},
		{"create_improvement_task", `{"eventType":"qa_no_answer","question":"q","title":"Document it","scope":{"projects":["kunora-kgent"]}}`, true},
	}
	for _, c := range inputs {
		var v any
		if err := json.Unmarshal([]byte(c.args), &v); err != nil {
			t.Fatal(err)
		}
		err := resolve(t, toolIndex[c.tool].input).Validate(v)
		if (err == nil) != c.ok {
			t.Errorf("%s %s: valid=%v, want %v (%v)", c.tool, c.args, err == nil, c.ok, err)
		}
	}
}

// No tool's input schema has a top-level oneOf, anyOf or allOf, as
// tools/list shows them: Anthropic's API refuses such a tool and Claude Code
// drops it, so get_page would be lost to the README's Claude
// configurations.
func TestNoTopLevelCombinators(t *testing.T) {
	g := newFakeGate()
	g.setGrants("all", "search", "ask", "get_page", "get_context", "create_feedback", "create_improvement_task")
	_, srv := server(t, g, Config{})
	for _, rev := range []string{"", "2025-11-25"} {
		res, err := connect(t, srv, "agent:all", rev, nil).ListTools(ctxT(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) != len(toolDefs) {
			t.Fatalf("%q: %d tools listed, want %d", rev, len(res.Tools), len(toolDefs))
		}
		for _, tool := range res.Tools {
			in := schemaMap(t, tool.InputSchema)
			for _, k := range []string{"oneOf", "anyOf", "allOf"} {
				if _, ok := in[k]; ok {
					t.Errorf("%q: %s's inputSchema has a top-level %s", rev, tool.Name, k)
				}
			}
			if in["type"] != "object" {
				t.Errorf("%q: %s's inputSchema is not an object schema", rev, tool.Name)
			}
		}
	}
}

// TestToolSchemasAreWhatToolsListShows: ToolSchemas, which package
// openapi writes docs/openapi.json from, names every tool with the input
// schema tools/list shows and the result its outputSchema wraps.
func TestToolSchemasAreWhatToolsListShows(t *testing.T) {
	all := ToolSchemas()
	if len(all) != len(toolDefs) {
		t.Fatalf("ToolSchemas has %d tools, tools/list %d", len(all), len(toolDefs))
	}
	for _, d := range toolDefs {
		s, ok := all[d.name]
		if !ok {
			t.Errorf("ToolSchemas lacks %s", d.name)
			continue
		}
		if string(s.Input) != string(d.input) {
			t.Errorf("%s: ToolSchemas' input is not the tool's", d.name)
		}
		if string(outputSchema(s.Result)) != string(d.output) {
			t.Errorf("%s: ToolSchemas' result is not what the tool's outputSchema wraps", d.name)
		}
	}
}
