package policies

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/wikigate/wikigate/protocol"
)

// TestAppendJSONMatchesEncodingJSON: the Wasm evaluator's input encoding
// decodes to the same document as encoding/json's, on generated inputs
// (every field filled by reflection) and on strings that need escaping.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	inputs := randomInputs(2000)
	for _, s := range []string{"", "a\"b\\c", "tab\tnl\ncr\r", "nul\x00bel\x07\x1f", "<&>", "é☃😀", "bad\xffutf8\xc3", "\u2028\u2029"} {
		inputs = append(inputs, Input{Endpoint: s, Tool: s, Caller: Caller{ID: s, Roles: []string{s}},
			Scope: &protocol.Scope{Paths: []string{s}, Version: s}, Pages: []string{s}, Page: &Page{Path: s, URL: s, Version: s}})
	}
	for i, in := range inputs {
		want, wantRaw := jsonValue(t, in)
		raw := in.appendJSON(nil)
		if !json.Valid(raw) {
			t.Fatalf("input %d: invalid JSON %s", i, raw)
		}
		got, err := ast.ValueFromReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got.Compare(want) != 0 {
			t.Fatalf("input %d:\nappendJSON    %s\nencoding/json %s", i, raw, wantRaw)
		}
		var a, b any
		_ = json.Unmarshal(raw, &a)
		_ = json.Unmarshal(wantRaw, &b)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("input %d:\nappendJSON    %s\nencoding/json %s", i, raw, wantRaw)
		}
	}
}
