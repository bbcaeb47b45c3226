package devragflow

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// orderedKeys returns the keys of a JSON object in the order they appear.
func orderedKeys(t *testing.T, raw string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %q", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// dataKeys is the key order of an event's data object.
func dataKeys(t *testing.T, event string) []string {
	t.Helper()
	var ev struct{ Data json.RawMessage }
	if err := json.Unmarshal([]byte(event), &ev); err != nil {
		t.Fatal(err)
	}
	return orderedKeys(t, string(ev.Data))
}

func TestStreamFraming(t *testing.T) {
	s := newTestServer(t)
	body := userMessage(gatePrompt) // no "stream" key: G2 streams by default
	rec := post(t, s, "/api/v1/chat/completions", body)
	for k, v := range map[string]string{"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache",
		"Connection": "keep-alive", "X-Accel-Buffering": "no"} {
		if got := rec.Header().Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	events := sseEvents(t, rec.Body.String())
	fixtureEvents := sseEvents(t, string(fixtureBytes(t, "completion.stream.sse")))
	if last := events[len(events)-1]; last != fixtureEvents[len(fixtureEvents)-1] {
		t.Errorf("terminator = %q, want %q", last, fixtureEvents[len(fixtureEvents)-1])
	}
	if len(events) < 3 {
		t.Fatalf("want several delta events, got %d", len(events))
	}
	var answer strings.Builder
	for _, ev := range events[:len(events)-1] {
		if !strings.HasPrefix(ev, `{"code": 0, "message": "", "data": {"answer": "`) {
			t.Errorf("event %q is not json.dumps-shaped", ev)
		}
		var parsed struct {
			Data struct {
				Answer string
				Final  bool
			}
		}
		if err := json.Unmarshal([]byte(ev), &parsed); err != nil {
			t.Fatal(err)
		}
		if parsed.Data.Final {
			t.Error("solo chat must not send a final event")
		}
		answer.WriteString(parsed.Data.Answer)
	}
	nonStream := complete(t, s, userMessage(gatePrompt))["data"].(map[string]any)["answer"]
	if answer.String() != nonStream {
		t.Errorf("deltas join to %q, want the non-stream answer %q", answer.String(), nonStream)
	}
}

// Solo events carry prompt and created_at in the order async_chat_solo
// yields them; the legacy DOC example shows that order (plus chat_id).
func TestStreamEventKeyOrder(t *testing.T) {
	s := newTestServer(t)
	events := sseEvents(t, post(t, s, "/api/v1/chat/completions", userMessage(gatePrompt)).Body.String())
	var want []string
	legacy := string(fixtureBytes(t, "completion.stream.legacy.sse"))
	first := strings.TrimSpace(strings.Split(legacy, "data:")[1])
	for _, k := range dataKeys(t, first) {
		if k != "chat_id" {
			want = append(want, k)
		}
	}
	if got := dataKeys(t, events[0]); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("data key order = %v, want %v", got, want)
	}
	if got := orderedKeys(t, events[0]); strings.Join(got, ",") != "code,message,data" {
		t.Errorf("event key order = %v", got)
	}
}

func TestStreamKeepsRawUTF8(t *testing.T) {
	s := newTestServer(t)
	rec := post(t, s, "/api/v1/chat/completions", userMessage("ID: 0\n网关对每个租户限流。\nQuestion: 网关怎么限流?"))
	body := rec.Body.String()
	if !strings.Contains(body, "网关对每个租户限流。 [ID:0]") || strings.Contains(body, `\u`) {
		t.Errorf("stream should carry raw UTF-8: %q", body)
	}
}

func TestStreamErrorEvent(t *testing.T) {
	s := newTestServer(t)
	events := sseEvents(t, post(t, s, "/api/v1/chat/completions", userMessage(42)).Body.String())
	want := []string{
		`{"code": 500, "message": "expected string or bytes-like object, got 'int'", "data": {"answer": "**ERROR**: expected string or bytes-like object, got 'int'", "reference": []}}`,
		`{"code": 0, "message": "", "data": true}`,
	}
	if strings.Join(events, "\n") != strings.Join(want, "\n") {
		t.Errorf("events = %q, want %q", events, want)
	}
}

func TestStreamOverRealConnection(t *testing.T) {
	srv := httptest.NewServer(newTestServer(t))
	defer srv.Close()
	raw, _ := json.Marshal(map[string]any{"stream": true, "messages": []any{map[string]any{"role": "user", "content": gatePrompt}}})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/chat/completions", strings.NewReader(string(raw)))
	req.Header.Set("Authorization", "Bearer "+testKey)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) < 4 || lines[len(lines)-2] != `data:{"code": 0, "message": "", "data": true}` || lines[len(lines)-1] != "" {
		t.Errorf("stream lines = %q", lines)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
}

func TestSplitDeltas(t *testing.T) {
	for _, text := range []string{"", "one", "a b c d e f g h i", "  lead and  double  spaces ", "字 字 字 字 字"} {
		parts := splitDeltas(text, 2)
		if strings.Join(parts, "") != text {
			t.Errorf("splitDeltas(%q) = %q does not join back", text, parts)
		}
		for _, p := range parts {
			if n := len(strings.Fields(p)); n > 2 {
				t.Errorf("piece %q has %d words", p, n)
			}
		}
	}
}
