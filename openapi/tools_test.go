package openapi

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wikigate/wikigate/mcp"
)

// TestToolResultsAreTheMCPSchemasAndCoverTheirTypes: the result schema of
// each tool route is the one tools/list shows as the tool's outputSchema
// (package mcp), and that schema names every member the route's Go type
// can answer and requires none the type may leave out. So a field added
// to a result fails here until the MCP schema, and with it the document,
// says so.
func TestToolResultsAreTheMCPSchemasAndCoverTheirTypes(t *testing.T) {
	routes := everyRoute(t)
	var b builder
	if err := b.toolResults(routes); err != nil {
		t.Fatal(err)
	}
	tools := mcp.ToolSchemas()
	seen := map[string]bool{}
	for _, rt := range routes {
		if _, ok := tools[rt.Tool]; !ok || rt.Path != toolPath+rt.Tool {
			continue
		}
		seen[rt.Tool] = true
		fromMCP := b.tools[rt.Response]
		if fromMCP == nil {
			t.Errorf("%s: no MCP result schema for %v", rt.Path, rt.Response)
			continue
		}
		fromType, err := jsonschema.ForType(rt.Response, nil)
		if err != nil {
			t.Fatal(err)
		}
		covers(t, rt.Tool, "", fromType, fromMCP)
	}
	for tool := range tools {
		if !seen[tool] {
			t.Errorf("tool %s has no /agent/tools route in the table", tool)
		}
	}
}

// covers reports each member typ's schema has that mcp's lacks, and each
// member mcp requires that typ may omit, recursively through objects and
// array items.
func covers(t *testing.T, tool, at string, typ, mcp *jsonschema.Schema) {
	t.Helper()
	if typ == nil || mcp == nil {
		return
	}
	for name, p := range typ.Properties {
		m, ok := mcp.Properties[name]
		if !ok {
			t.Errorf("%s: the MCP result schema lacks %s.%s, which the Go type answers", tool, at, name)
			continue
		}
		covers(t, tool, at+"."+name, p, m)
	}
	for _, name := range mcp.Required {
		if typ.Properties != nil && !slices.Contains(typ.Required, name) {
			t.Errorf("%s: the MCP result schema requires %s.%s, which the Go type may omit", tool, at, name)
		}
	}
	covers(t, tool, at+"[]", typ.Items, mcp.Items)
}

// TestToolRequestsTakeWhatTheMCPInputsDescribe: every member a tool's MCP
// inputSchema lets a model send is a member of the HTTP route's request
// schema, with the same JSON type, so a call built from tools/list is a
// valid body for /agent/tools/<tool> too.
func TestToolRequestsTakeWhatTheMCPInputsDescribe(t *testing.T) {
	raw, err := Build(everyRoute(t))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Schema struct {
						Ref string `json:"$ref"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]*jsonschema.Schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for tool, ts := range mcp.ToolSchemas() {
		ref := doc.Paths[toolPath+tool]["post"].RequestBody.Content["application/json"].Schema.Ref
		req := doc.Components.Schemas[refName(ref)]
		if req == nil {
			t.Errorf("%s: no request schema (%q)", tool, ref)
			continue
		}
		var in jsonschema.Schema
		if err := json.Unmarshal(ts.Input, &in); err != nil {
			t.Fatal(err)
		}
		accepts(t, tool, "", &in, req)
	}
}

// accepts reports each member of in that req lacks or types otherwise.
func accepts(t *testing.T, tool, at string, in, req *jsonschema.Schema) {
	t.Helper()
	if in == nil || req == nil {
		return
	}
	for name, p := range in.Properties {
		r, ok := req.Properties[name]
		if !ok {
			t.Errorf("%s: the HTTP request lacks %s.%s, which the MCP input offers", tool, at, name)
			continue
		}
		if !sameType(p, r) {
			t.Errorf("%s: %s.%s is %v in the MCP input, %v in the HTTP request", tool, at, name, types(p), types(r))
		}
		accepts(t, tool, at+"."+name, p, r)
	}
	accepts(t, tool, at+"[]", in.Items, req.Items)
}

// sameType: the MCP input's type is one the request schema allows (the Go
// types make slices and pointers nullable, which the inputs do not say).
func sameType(in, req *jsonschema.Schema) bool {
	for _, ty := range types(in) {
		if !slices.Contains(types(req), ty) {
			return false
		}
	}
	return true
}

func types(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

func refName(ref string) string {
	const prefix = "#/components/schemas/"
	if len(ref) > len(prefix) {
		return ref[len(prefix):]
	}
	return ""
}
