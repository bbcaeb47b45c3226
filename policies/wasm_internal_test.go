package policies

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/util"

	"github.com/wikigate/wikigate/protocol"
)

const allowResult = `{"project_paths":{"kunora-kgent":["publish/system/components/kunora-kgent/guides"]},"write_tools":["create_feedback","create_improvement_task"],"write":false,"index":"wiki_pages","pages":[],"allow":true,"limits":[{"per":"caller","requests":120,"name":"ask-minute","window":60}],"datasets":[{"status":"approved","version":"main","project":"kunora-kgent","id":"d092f80af64f8e5e119cee1082c471b4"}],"scope":{"paths":["publish/system/components/kunora-kgent/guides"],"version":"main","includeWorkingDocs":false,"projects":["kunora-kgent"]}}`

// readWireAST is the topdown path's reading of raw: the JSON as OPA's
// AST, read by readWireDecision.
func readWireAST(t testing.TB, raw []byte) (wireDecision, error) {
	var v any
	if err := util.UnmarshalJSON(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	value, err := ast.InterfaceToValue(v)
	if err != nil {
		t.Fatal(err)
	}
	object, ok := value.(ast.Object)
	if !ok {
		return wireDecision{}, errJSON
	}
	return readWireDecision(object)
}

// oddValues are JSON values of every kind, to put where the decision
// expects something else.
var oddValues = []string{
	`null`, `true`, `false`, `0`, `-3`, `1.5`, `1e2`, `120`, `"x"`, `"caller"`, `"a\"b\u00e9\ud83d\ude00"`,
	`[]`, `[null]`, `[1]`, `["a","b"]`, `[{}]`, `{}`, `{"a":1}`, `{"a":["x"]}`, `{"a":null}`, `[[]]`,
}

// mutations are allowResult with one field, or one field of a nested
// object, replaced by each odd value, plus hand-picked shapes.
func mutations(t testing.TB) []string {
	var base map[string]any
	if err := json.Unmarshal([]byte(allowResult), &base); err != nil {
		t.Fatal(err)
	}
	var out []string
	put := func(doc map[string]any) {
		raw, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(raw))
	}
	for _, odd := range oddValues {
		var v any
		if err := json.Unmarshal([]byte(odd), &v); err != nil {
			t.Fatal(err)
		}
		for key := range base {
			doc := copyDoc(t, base)
			doc[key] = v
			put(doc)
			doc = copyDoc(t, base)
			delete(doc, key)
			put(doc)
		}
		for _, nested := range []struct{ parent, key string }{
			{"scope", "projects"}, {"scope", "paths"}, {"scope", "version"}, {"scope", "includeWorkingDocs"}, {"scope", "other"},
			{"project_paths", "kunora-kgent"}, {"project_paths", "p2"},
		} {
			doc := copyDoc(t, base)
			doc[nested.parent].(map[string]any)[nested.key] = v
			put(doc)
		}
		for _, list := range []string{"datasets", "limits"} {
			for _, key := range []string{"id", "project", "version", "status", "name", "per", "requests", "tokens", "window", "extra"} {
				doc := copyDoc(t, base)
				elem := doc[list].([]any)[0].(map[string]any)
				elem[key] = v
				put(doc)
				doc = copyDoc(t, base)
				delete(doc[list].([]any)[0].(map[string]any), key)
				put(doc)
			}
			doc := copyDoc(t, base)
			doc[list] = append(doc[list].([]any), v)
			put(doc)
			doc = copyDoc(t, base)
			doc[list] = []any{map[string]any{}, doc[list].([]any)[0]}
			put(doc)
		}
	}
	out = append(out, `{"allow":false,"code":"forbidden_tool","reason":"tool \"x\" is not allowed"}`,
		`{"allow":false}`, `{}`, `[]`, `"s"`, `1`, `null`, ` { "allow" : true , "scope" : { } } `,
		strings.Replace(allowResult, `"requests":120`, `"tokens":50000`, 1),
		strings.Replace(allowResult, `"requests":120`, `"tokens":null`, 1),
		strings.Replace(allowResult, `"requests":120`, `"tokens":0`, 1))
	return out
}

func copyDoc(t testing.TB, doc map[string]any) map[string]any {
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadWireJSONMatchesAST holds the Wasm path's JSON reader to the
// topdown path's AST reader on the shipped allow and on hundreds of
// malformed variants of it: the same decision, the same tool decision,
// an error exactly when the other errs.
func TestReadWireJSONMatchesAST(t *testing.T) {
	t.Parallel()
	cases := mutations(t)
	for _, raw := range cases {
		compareReaders(t, []byte(raw))
	}
	t.Logf("%d results compared", len(cases))
}

func compareReaders(t *testing.T, raw []byte) {
	t.Helper()
	wantWire, wantErr := readWireAST(t, raw)
	gotWire, gotErr := readWireJSON(raw)
	if (wantErr != nil) != (gotErr != nil) || (wantErr == nil && !reflect.DeepEqual(wantWire, gotWire)) {
		t.Fatalf("%s:\nAST:  %+v %v\nJSON: %+v %v", raw, wantWire, wantErr, gotWire, gotErr)
	}
	for _, read := range []func(wireDecision, error) (Decision, error){decisionOf, toolDecisionOf} {
		want, wantErr := read(wantWire, wantErr)
		got, gotErr := read(gotWire, gotErr)
		if (wantErr != nil) != (gotErr != nil) || !reflect.DeepEqual(want, got) {
			t.Fatalf("%s:\nAST:  %+v %v\nJSON: %+v %v", raw, want, wantErr, got, gotErr)
		}
	}
}

// FuzzReadWireJSON compares the readers on any JSON object.
func FuzzReadWireJSON(f *testing.F) {
	f.Add([]byte(allowResult))
	f.Add([]byte(`{"allow":false,"code":"unauthorized","reason":"unknown agent"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		var v any
		if util.UnmarshalJSON(raw, &v) != nil {
			return
		}
		if _, err := ast.InterfaceToValue(v); err != nil {
			return // not a value OPA can hold (1E100000), so no decision is one
		}
		if namesAMemberTwice(raw) {
			// OPA's AST keeps the last of two members, so the AST reader
			// cannot see the duplicate; the JSON reader must refuse it.
			if _, err := readWireJSON(raw); err == nil {
				t.Fatalf("%s: a member named twice was read as a decision", raw)
			}
			return
		}
		compareReaders(t, raw)
	})
}

// namesAMemberTwice reports whether any object in raw (valid JSON) names
// a member twice, comparing names as decoded.
func namesAMemberTwice(raw []byte) bool {
	type level struct {
		names    map[string]bool // nil for an array
		wantName bool
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var stack []*level
	valueRead := func() { // a whole value ended; its object wants a name next
		if n := len(stack); n > 0 && stack[n-1].names != nil {
			stack[n-1].wantName = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &level{names: map[string]bool{}, wantName: true})
			continue
		case json.Delim('['):
			stack = append(stack, &level{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueRead()
			continue
		}
		if top := len(stack) - 1; top >= 0 && stack[top].wantName {
			name := tok.(string)
			if stack[top].names[name] {
				return true
			}
			stack[top].names[name] = true
			stack[top].wantName = false
			continue
		}
		valueRead()
	}
}

func TestReadWireJSONRefusesAMemberNamedTwice(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		`{"write":true,"write":[]}`,
		`{"allow":true,"allow":false}`,
		`{"scope":{"paths":["a"],"paths":["b"]}}`,
		`{"datasets":[{"id":"a","id":"b"}]}`,
		`{"x":{"y":1,"\u0079":2}}`,
	} {
		if !namesAMemberTwice([]byte(raw)) {
			t.Fatalf("%s: the harness missed the duplicate", raw)
		}
		if _, err := readWireJSON([]byte(raw)); !errors.Is(err, errDuplicateName) {
			t.Fatalf("%s: got %v, want errDuplicateName", raw, err)
		}
	}
	if namesAMemberTwice([]byte(allowResult)) {
		t.Fatal("the shipped allow has no duplicate")
	}
}

func BenchmarkWasmGlue(b *testing.B) {
	in := Input{Endpoint: "/agent/tools/ask", Tool: "ask", Action: "read", SiteMode: "public-read",
		Caller: Caller{Type: "agent", ID: "docs-maintainer-agent", Credential: "jwt"},
		Scope:  &protocol.Scope{Paths: []string{"publish/system/components/kunora-kgent/guides"}}}
	b.Run("input", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(&in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("result", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decisionOf(readWireJSON([]byte(allowResult))); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestReadWireJSONKeepsNothingOfTheText: member names alias the result
// text while it is read (name), and that text is a pooled buffer the next
// decision overwrites, so nothing the reader returns may point into it.
func TestReadWireJSONKeepsNothingOfTheText(t *testing.T) {
	t.Parallel()
	buf := []byte(allowResult)
	want, err := decisionOf(readWireJSON([]byte(allowResult)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := decisionOf(readWireJSON(buf))
	if err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = 'X'
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("after the text was overwritten:\n got %+v\nwant %+v", got, want)
	}
}

// A token budget (tokens instead of requests) is read the same by both
// readers; a limit counting both is a malformed decision.
func TestTokenLimitIsRead(t *testing.T) {
	t.Parallel()
	raw := strings.Replace(allowResult, `"requests":120,"name":"ask-minute","window":60`, `"tokens":50000,"name":"tokens-hour","window":3600`, 1)
	for _, read := range []func([]byte) (wireDecision, error){func(b []byte) (wireDecision, error) { return readWireAST(t, b) }, readWireJSON} {
		w, err := read([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if want := (Limit{Name: "tokens-hour", Per: PerCaller, Tokens: 50000, Window: 3600}); len(w.Limits) != 1 || w.Limits[0] != want {
			t.Fatalf("limits = %+v, want %+v", w.Limits, want)
		}
		both := strings.Replace(allowResult, `"requests":120`, `"requests":120,"tokens":5`, 1)
		if _, err := read([]byte(both)); err == nil {
			t.Fatal("a limit counting requests and tokens was read")
		}
	}
}
