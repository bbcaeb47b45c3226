package ragflow

import (
	"bytes"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

const sseType = "text/event-stream; charset=utf-8"

var askMsgs = []Message{{Role: RoleUser, Content: "What is RAGFlow?"}}

func TestCompleteSendsOnlyMessagesAndStream(t *testing.T) {
	for _, stream := range []bool{false, true} {
		body, ct := fixture(t, "derived/completion.response.json"), "application/json"
		if stream {
			body, ct = fixture(t, "derived/completion.stream.sse"), sseType
		}
		f := serveReply(t, 200, ct, body)
		if _, err := newTestClient(t, f.URL).Complete(t.Context(), askMsgs, stream); err != nil {
			t.Fatal(err)
		}
		r := f.requests()[0]
		if r.Method != http.MethodPost || r.Path != "/api/v1/chat/completions" || r.Auth != "Bearer "+testKey {
			t.Errorf("request = %s %s %q", r.Method, r.Path, r.Auth)
		}
		want := map[string]any{
			"messages": []any{map[string]any{"role": "user", "content": "What is RAGFlow?"}},
			"stream":   stream,
		}
		if !reflect.DeepEqual(r.Body, want) {
			t.Errorf("stream=%v: body = %v", stream, r.Body)
		}
	}
}

const fixtureAnswer = "RAGFlow is an open-source RAG engine built on deep document understanding [ID:0]. It cites its sources [ID:1]."

func TestCompleteAnswers(t *testing.T) {
	cases := []struct {
		name, file string
		stream     bool
		answer     string
		refs       []string
	}{
		{"non-stream", "derived/completion.response.json", false, "RAGFlow is an open-source RAG engine built on deep document understanding [ID:0]. It cites its sources [ID:1].",
			[]string{"d78435d142bd5cf6704da62c778795c5", "e89546e253ce6d07815eb73d889806d6"}},
		{"non-stream empty response", "derived/completion.response.empty_response.json", false, "Sorry! No relevant content was found in the knowledge base!", nil},
		{"delta stream with final reference", "derived/completion.stream.sse", true, fixtureAnswer,
			[]string{"d78435d142bd5cf6704da62c778795c5", "e89546e253ce6d07815eb73d889806d6"}},
		{"thinking left out", "derived/completion.stream.think_markers.sse", true, "RAGFlow is a RAG engine [ID:0].",
			[]string{"d78435d142bd5cf6704da62c778795c5", "e89546e253ce6d07815eb73d889806d6"}},
		{"empty response sent twice, kept once", "derived/completion.stream.empty_response.sse", true, "Sorry! No relevant content was found in the knowledge base!", nil},
		{"docs' pretty-printed solo stream", "completion.stream.no_chat.sse", true, "I am an assistant powered by the tenant's default chat model.", nil},
		{"terminator alone", "completion.stream.terminator.sse", true, "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct := "application/json"
			if tc.stream {
				ct = sseType
			}
			c := newTestClient(t, serveReply(t, 200, ct, fixture(t, tc.file)).URL)
			got, err := c.Complete(t.Context(), askMsgs, tc.stream)
			if err != nil {
				t.Fatal(err)
			}
			if got.Answer != tc.answer {
				t.Errorf("answer = %q, want %q", got.Answer, tc.answer)
			}
			var ids []string
			for _, ch := range got.Reference {
				ids = append(ids, ch.ID)
			}
			if !slices.Equal(ids, tc.refs) || got.Reference == nil {
				t.Errorf("reference ids = %v, want %v", ids, tc.refs)
			}
		})
	}
}

func TestCompleteStreamFramings(t *testing.T) {
	base := fixture(t, "derived/completion.stream.sse")
	cases := map[string][]byte{
		"space after data:": bytes.ReplaceAll(base, []byte("data:"), []byte("data: ")),
		"CRLF line ends":    bytes.ReplaceAll(base, []byte("\n"), []byte("\r\n")),
		"comments and ids":  append([]byte(": keep-alive\nid: 1\nevent: message\n\n"), base...),
		"no content type":   base,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			ct := sseType
			if name == "no content type" {
				ct = ""
			}
			f := serveFunc(t, func(w http.ResponseWriter, _ *http.Request) {
				if ct != "" {
					w.Header().Set("Content-Type", ct)
				} else {
					w.Header()["Content-Type"] = nil // no sniffing either
				}
				_, _ = w.Write(body)
			})
			got, err := newTestClient(t, f.URL).Complete(t.Context(), askMsgs, true)
			if err != nil {
				t.Fatal(err)
			}
			if got.Answer != fixtureAnswer || len(got.Reference) != 2 {
				t.Errorf("answer %q, %d references", got.Answer, len(got.Reference))
			}
		})
	}
}

func TestCompleteFailures(t *testing.T) {
	stream := string(fixture(t, "derived/completion.stream.sse"))
	firstEvent := stream[:strings.Index(stream, "\n\n")+2]
	cases := []struct {
		name, contentType, body string
		status                  int
		stream                  bool
		kind                    ErrorKind
		code                    int
	}{
		{name: "error event then terminator", contentType: sseType, body: string(fixture(t, "derived/completion.stream.error.sse")), stream: true, kind: Rejected, code: 500},
		{name: "ERROR answer with code 0", contentType: sseType, stream: true, kind: Rejected,
			body: "data:{\"code\": 0, \"message\": \"\", \"data\": {\"answer\": \"**ERROR**: rate limited\", \"reference\": {}}}\n\ndata:{\"code\": 0, \"message\": \"\", \"data\": true}\n\n"},
		{name: "ERROR answer non-stream", contentType: "application/json", kind: Rejected,
			body: `{"code": 0, "message": "success", "data": {"answer": "**ERROR**: no model", "reference": {}}}`},
		{name: "stream cut before terminator", contentType: sseType, body: firstEvent, stream: true, kind: BadResponse},
		{name: "event that is not JSON", contentType: sseType, body: "data:[DONE]\n\n", stream: true, kind: BadResponse},
		{name: "event without code", contentType: sseType, body: "data:{\"data\": true}\n\n", stream: true, kind: BadResponse},
		{name: "event data of the wrong shape", contentType: sseType, body: "data:{\"code\": 0, \"data\": [1]}\n\n", stream: true, kind: BadResponse},
		{name: "text that is not SSE", contentType: sseType, body: "hello\n", stream: true, kind: BadResponse},
		{name: "HTML for a stream", contentType: "text/html", body: "<html>maintenance</html>", stream: true, kind: BadResponse},
		{name: "JSON error envelope for a stream", contentType: "application/json", body: `{"code": 101, "message": "The last message must be from user.", "data": null}`, stream: true, kind: Rejected, code: 101},
		{name: "G1 missing key for a stream", contentType: "application/json", body: string(fixture(t, "v0.24.0/error.missing_key.json")), stream: true, kind: Rejected},
		{name: "401 for a stream", contentType: "application/json", status: 401, body: string(fixture(t, "error.invalid_key.json")), stream: true, kind: Rejected, code: 401},
		{name: "non-stream data not an answer", contentType: "application/json", body: `{"code": 0, "message": "success", "data": true}`, kind: BadResponse},
		{name: "non-stream reference malformed", contentType: "application/json", body: `{"code": 0, "data": {"answer": "a", "reference": "x"}}`, kind: BadResponse},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status := tc.status
			if status == 0 {
				status = 200
			}
			c := newTestClient(t, serveReply(t, status, tc.contentType, []byte(tc.body)).URL)
			got, err := c.Complete(t.Context(), askMsgs, tc.stream)
			if got != nil {
				t.Errorf("a failure returned an answer: %+v", got)
			}
			e := asError(t, err, tc.kind)
			if e.Code != tc.code {
				t.Errorf("code = %d, want %d", e.Code, tc.code)
			}
			assertProtocolError(t, e)
		})
	}
}

func TestCompleteStreamOverCap(t *testing.T) {
	body := fixture(t, "derived/completion.stream.sse")
	c := newTestClient(t, serveReply(t, 200, sseType, body).URL, func(cfg *Config) { cfg.MaxResponseBytes = 200 })
	_, err := c.Complete(t.Context(), askMsgs, true)
	asError(t, err, BadResponse)
}

func TestCompleteStreamStallsIntoTimeout(t *testing.T) {
	stream := string(fixture(t, "derived/completion.stream.sse"))
	firstEvent := stream[:strings.Index(stream, "\n\n")+2]
	f := serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", sseType)
		_, _ = w.Write([]byte(firstEvent))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := newTestClient(t, f.URL, func(cfg *Config) { cfg.Timeout = 50 * time.Millisecond })
	_, err := c.Complete(t.Context(), askMsgs, true)
	asError(t, err, Timeout)
}
