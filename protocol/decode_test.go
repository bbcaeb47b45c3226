package protocol

import (
	"strings"
	"testing"
)

func TestDecodeRejectsBadBodies(t *testing.T) {
	cases := []struct {
		name, body, wantInMsg string
	}{
		{"empty", "", "empty"},
		{"array", `[1]`, "JSON object"},
		{"malformed", `{"question": "x"`, "unexpected end"},
		{"syntax", `{"question" "x"}`, "malformed JSON at byte"},
		{"unknown field", `{"question":"x","kb_ids":["a"]}`, `unknown field "kb_ids"`},
		{"wrong type", `{"question":"x","limit":"ten"}`, `field "limit" must be a number`},
		{"nested wrong type", `{"scope":{"paths":"a"}}`, `field "scope.paths" must be an array`},
		{"nested unknown", `{"scope":{"datasets":["a"]}}`, `unknown field "datasets"`},
		{"trailing data", `{"question":"x"} {}`, "data after"},
		{"duplicate key", `{"question":"a","question":"b"}`, `duplicate field "question"`},
		{"escaped duplicate key", `{"question":"a","\u0071uestion":"b"}`, `duplicate field "question"`},
		{"nested duplicate key", `{"question":"a","scope":{"version":"main","version":"v1.0"}}`, `duplicate field "scope.version"`},
		{"case variant", `{"Question":"a"}`, `unknown field "Question"`},
		{"upper case object", `{"question":"a","SCOPE":{}}`, `unknown field "SCOPE"`},
		{"long s folding", `{"question":"a","ſcope":{}}`, "unknown field \"ſcope\""},
		{"kelvin sign folding", `{"question":"a","scope":{"includeWorKingDocs":true}}`, "unknown field \"includeWorKingDocs\" in \"scope\""},
		{"invalid UTF-8 value", "{\"question\":\"a\xffb\"}", `invalid UTF-8 in field "question"`},
		{"invalid UTF-8 nested", "{\"question\":\"a\",\"scope\":{\"paths\":[\"x\xc3\"]}}", `invalid UTF-8 in field "scope.paths[0]"`},
		{"invalid UTF-8 name", "{\"qu\xffestion\":\"a\"}", "invalid UTF-8 in a field name"},
		{"lone surrogate escape", `{"question":"a\ud800b"}`, `invalid UTF-8 in field "question"`},
		{"fraction for integer", `{"question":"x","limit":2.5}`, `field "limit" must be a whole number`},
		{"unicode space before object", "\u00a0{\"question\":\"x\"}", "JSON object"},
		{"byte order mark", "\xef\xbb\xbf{\"question\":\"x\"}", "byte order mark"},
		{"gzip without its header", "\x1f\x8b\x08\x00\x00\x00", "gzip-compressed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var req SearchRequest
			err := Decode([]byte(tc.body), &req)
			pe := AsError(err)
			if err == nil || pe.Code != CodeInvalidRequest || pe.Status != 400 {
				t.Fatalf("got %v, want invalid_request 400", err)
			}
			if !strings.Contains(pe.Message, tc.wantInMsg) {
				t.Fatalf("message %q does not contain %q", pe.Message, tc.wantInMsg)
			}
		})
	}
}

func TestDecodeAcceptsStandardRequest(t *testing.T) {
	body := `{"caller":{"type":"agent","id":"a","purpose":"p"},
	  "scope":{"projects":["kunora-kgent"],"paths":["publish/x"],"version":"main","includeWorkingDocs":false},
	  "question":"q","requireCitations":true,"limit":5}`
	var req SearchRequest
	if err := Decode([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	if req.Limit != 5 || req.Scope.Paths[0] != "publish/x" || req.Caller.ID != "a" || !*req.RequireCitations {
		t.Fatalf("decoded wrong: %+v", req)
	}
}

func TestReadBodyCaps(t *testing.T) {
	if _, err := ReadBody(strings.NewReader(strings.Repeat("a", 11)), 10); AsError(err).Status != 413 {
		t.Fatalf("want 413, got %v", err)
	}
	b, err := ReadBody(strings.NewReader("0123456789"), 10)
	if err != nil || len(b) != 10 {
		t.Fatalf("exact cap must pass: %v", err)
	}
}

// TestDecodeNeverEchoesValues: messages name fields, never what the caller
// put in them, and a huge unknown name comes back cut short.
func TestDecodeNeverEchoesValues(t *testing.T) {
	long := strings.Repeat("n", 5000)
	bodies := []string{
		`{"question":"x","limit":"SECRET-VALUE"}`,
		`{"question":"x","limit":123456789123456789123456789}`,
		`{"question":"SECRET-VALUE\ud800"}`,
		`{"question":"x","` + long + `":1}`,
	}
	for _, body := range bodies {
		var req SearchRequest
		msg := AsError(Decode([]byte(body), &req)).Message
		if strings.Contains(msg, "SECRET") || strings.Contains(msg, "123456789") || len(msg) > 200 {
			t.Errorf("message %q echoes the caller's value", msg)
		}
	}
}

// TestDecodeFieldPaths names nested and indexed fields the way validation
// messages do.
func TestDecodeFieldPaths(t *testing.T) {
	var v struct {
		Standard
		Citations []Citation `json:"citations"`
	}
	err := Decode([]byte(`{"citations":[{"path":"a"},{"path":1}]}`), &v)
	if msg := AsError(err).Message; msg != `field "citations[1].path" must be a string, not a number` {
		t.Fatalf("message = %q", msg)
	}
}
