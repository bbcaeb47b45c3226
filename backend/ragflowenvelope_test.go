package backend

import (
	"net/http"
	"reflect"
	"testing"
)

// TestDecodeRAGFlowRefusesEveryFailureForm: docs/backends.md, RAGFlow wire
// details (Authentication, Envelope), one row a form: what the gate and the
// loader both read as failed, and what passes.
func TestDecodeRAGFlowRefusesEveryFailureForm(t *testing.T) {
	jsonType := http.Header{"Content-Type": {"application/json"}}
	for _, c := range []struct {
		name   string
		status int
		header http.Header
		body   string
		want   *RAGFlowRefusal
	}{
		{"success", 200, jsonType, `{"code":0,"data":{"chunks":[]}}`, nil},
		{"success without data", 200, jsonType, `{"code":0}`, nil},
		{"code 0, data false about something else", 200, jsonType, `{"code":0,"data":false,"message":"nothing to do"}`, nil},
		{"error code", 200, jsonType, `{"code":102,"message":"You don't own the dataset."}`,
			&RAGFlowRefusal{Kind: Rejected, HTTPStatus: 200, Code: 102, Message: "You don't own the dataset."}},
		{"error code with data", 200, jsonType, `{"code":500,"message":"partly","data":[{"id":"d"}]}`,
			&RAGFlowRefusal{Kind: Rejected, HTTPStatus: 200, Code: 500, Message: "partly"}},
		{"G1 auth failure", 200, jsonType, `{"code":0,"data":false,"message":"Authentication error: API key is invalid! Check Authorization"}`,
			&RAGFlowRefusal{Kind: Rejected, HTTPStatus: 200, Message: "Authentication error: API key is invalid! Check Authorization", Why: WhyAuthFailed}},
		{"G1 code 109", 200, jsonType, `{"code":109,"data":false,"message":"Authentication error"}`,
			&RAGFlowRefusal{Kind: Rejected, HTTPStatus: 200, Code: 109, Message: "Authentication error"}},
		{"0.26 401 with an envelope", 401, jsonType, `{"code":401,"message":"Invalid API key"}`,
			&RAGFlowRefusal{Kind: Rejected, HTTPStatus: 401, Code: 401, Message: "Invalid API key"}},
		{"error status, no envelope", 502, http.Header{"Content-Type": {"text/html"}}, `<html>bad gateway</html>`,
			&RAGFlowRefusal{Kind: Rejected, HTTPStatus: 502}},
		{"error status, envelope without a code", 500, jsonType, `{"message":"boom"}`,
			&RAGFlowRefusal{Kind: Rejected, HTTPStatus: 500}},
		{"html with 200", 200, http.Header{"Content-Type": {"text/html; charset=utf-8"}}, `{"code":0}`,
			&RAGFlowRefusal{Kind: BadResponse, Why: WhyHTML}},
		{"html body, JSON type", 200, jsonType, "  <!doctype html>", &RAGFlowRefusal{Kind: BadResponse, Why: WhyHTML}},
		{"invalid json", 200, jsonType, `{"code":0,`, &RAGFlowRefusal{Kind: BadResponse, Why: WhyNotJSON}},
		{"code of the wrong type", 200, jsonType, `{"code":"0"}`, &RAGFlowRefusal{Kind: BadResponse, Why: WhyNotJSON}},
		{"no code", 200, jsonType, `{"data":{"chunks":[]}}`, &RAGFlowRefusal{Kind: BadResponse, Why: WhyNoCode}},
		{"null", 200, jsonType, `null`, &RAGFlowRefusal{Kind: BadResponse, Why: WhyNoCode}},
	} {
		env, got := DecodeRAGFlow(c.status, c.header, []byte(c.body))
		if !reflect.DeepEqual(got, c.want) || (got == nil) != (env != nil) {
			t.Errorf("%s: refusal %+v, envelope %v; want %+v", c.name, got, env, c.want)
		}
	}
}

// TestCheckRAGFlowReadsTheHeadItIsGiven: a caller that decoded the body
// itself (the gate's one-pass reader) gets the same verdict from its head.
func TestCheckRAGFlowReadsTheHeadItIsGiven(t *testing.T) {
	code := 0
	h := RAGFlowHead{Code: &code, Message: "`Authorization` can't be empty", DataKind: 'f'}
	got := CheckRAGFlow(200, http.Header{}, []byte("{}"), h, true)
	if got == nil || got.Why != WhyAuthFailed {
		t.Fatalf("G1 head: %+v", got)
	}
	h.DataKind = '{'
	if got := CheckRAGFlow(200, http.Header{}, []byte("{}"), h, true); got != nil {
		t.Fatalf("success head: %+v", got)
	}
	if got := CheckRAGFlow(200, http.Header{}, []byte("{}"), h, false); got == nil || got.Why != WhyNotJSON {
		t.Fatalf("undecoded: %+v", got)
	}
}
