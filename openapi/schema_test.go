package openapi

import (
	"bytes"
	"encoding/json"
	"testing"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"
)

// TestSchemasCompileAndReadTheirExamples: every schema of the document
// compiles as JSON Schema 2020-12 (OpenAPI 3.1's dialect), and the error
// envelope accepts the gate's refusal and rejects a body with an extra
// member, so a client validating responses against the document reads the
// gate's bodies as they are.
func TestSchemasCompileAndReadTheirExamples(t *testing.T) {
	raw, err := Build(everyRoute(t))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	compiled := map[string]*sjs.Schema{}
	for name, s := range doc.Components.Schemas {
		v, err := sjs.UnmarshalJSON(bytes.NewReader(s))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c := sjs.NewCompiler()
		c.DefaultDraft(sjs.Draft2020)
		url := "urn:wikigate:" + name
		if err := c.AddResource(url, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if compiled[name], err = c.Compile(url); err != nil {
			t.Errorf("%s does not compile: %v", name, err)
		}
	}
	envelope := compiled["ErrorBody"]
	if envelope == nil {
		t.Fatal("no ErrorBody schema")
	}
	for body, ok := range map[string]bool{
		`{"error":{"code":"forbidden","message":"tool ask is not granted","requestId":"req_1"}}`:             true,
		`{"error":{"code":"forbidden","message":"tool ask is not granted","requestId":"req_1","stack":"x"}}`: false,
		`{"error":{"code":"forbidden"}}`: false,
	} {
		v, err := sjs.UnmarshalJSON(bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		if err := envelope.Validate(v); (err == nil) != ok {
			t.Errorf("ErrorBody on %s: valid %v, want %v (%v)", body, err == nil, ok, err)
		}
	}
}
