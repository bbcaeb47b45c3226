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
