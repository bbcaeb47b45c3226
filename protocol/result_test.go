package protocol

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// resultKinds is one of each Result kind, with text that encoders escape
// differently (HTML, U+2028) and the value encoding/json would write.
func resultKinds() []struct {
	name string
	res  Result
	v    any
} {
	audit := Audit{RequestID: "r<1>", Caller: "agent:a&b", Scope: "s"}
	search := SearchResult{Hits: []SearchHit{{Path: "a.md", URL: "/a?x=1&y=2", Title: "<A>", Snippet: "x \u2028 y", Score: 0.5}}, Total: 3, Audit: audit}
	page := PageResult{Pages: []Page{{Path: "a.md", Title: "A & B", Content: "# <A>\n", Headings: []string{"A"}}},
		Errors: []PageError{{Path: "b.md", Code: CodeNotFound, Message: "page not found"}}, Audit: audit}
	answer := AnswerResult{Answer: "Use <Redis> [1].", Confidence: ConfidenceHigh, Citations: []Citation{{Path: "a.md", URL: "/a", Title: "A"}}, Audit: audit}
	pack := ContextPack{Question: "q&a", Items: []ContextItem{{Path: "a.md", Content: "<b>", Score: 0.25}}, Citations: []Citation{}, MaxTokens: 4000, Audit: audit}
	session := struct {
		ID   string `json:"sessionId"`
		Note string `json:"note"`
	}{"s1", "<&>"}
	return []struct {
		name string
		res  Result
		v    any
	}{
		{"search", &search, search},
		{"page", &page, page},
		{"answer", &answer, answer},
		{"context", &pack, pack},
		{"json", JSON(session), session},
	}
}

// TestResultBodiesAreEncodingJSON: the HTTP body of every kind is what the
// routes always wrote (an Encoder without HTML escaping, newline
// included) and structuredContent is json.Marshal's bytes, whether the
// kind is written by hand or by encoding/json.
func TestResultBodiesAreEncodingJSON(t *testing.T) {
	for _, k := range resultKinds() {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(k.v); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second time through a pooled encoder
			body, err := k.res.AppendBody([]byte("x"))
			if err != nil || string(body) != "x"+want.String() {
				t.Errorf("%s body = %q, %v; want %q", k.name, body, err, "x"+want.String())
			}
			marshaled, _ := json.Marshal(k.v)
			structured, err := k.res.AppendStructured([]byte("x"))
			if err != nil || string(structured) != "x"+string(marshaled) {
				t.Errorf("%s structuredContent = %s, %v; want x%s", k.name, structured, err, marshaled)
			}
		}
	}
}

// A feedback receipt is the stored response: the HTTP body byte for byte
// (spacing included), a replay says so, and structuredContent is the
// same JSON as encoding/json re-encodes it.
func TestFeedbackReceiptIsTheStoredResponse(t *testing.T) {
	stored := []byte(`{"record": {"id":"f1","type":"create_feedback","dedupeKey":"k<1>","status":"open","count":2},"created":false}`)
	for _, replay := range []bool{false, true} {
		r := &FeedbackReceipt{Body: stored, Replay: replay}
		body, err := r.AppendBody(nil)
		if err != nil || !bytes.Equal(body, stored) {
			t.Errorf("body %s, %v; want the stored bytes", body, err)
		}
		if r.Replayed() != replay {
			t.Errorf("Replayed() = %v, want %v", r.Replayed(), replay)
		}
		want, _ := json.Marshal(json.RawMessage(stored))
		if got, err := r.AppendStructured(nil); err != nil || !bytes.Equal(got, want) {
			t.Errorf("structuredContent %s, %v; want %s", got, err, want)
		}
		if got, want := string(r.AppendText(nil)), "Merged into existing create_feedback record f1 (status open, reported 2 times, dedupeKey k<1>)."; got != want {
			t.Errorf("text %q, want %q", got, want)
		}
	}
	for _, k := range resultKinds() {
		if k.res.Replayed() {
			t.Errorf("%s says it is a replay", k.name)
		}
	}
}

// TestResultTexts: the text MCP shows a model names each page with its
// title, path and url, an answer's sources and actions, a context pack's
// budget; only an answer offers links.
func TestResultTexts(t *testing.T) {
	want := map[string]string{
		"search":  "1 of 3 matching pages:\n1. <A> — a.md (/a?x=1&y=2)\n   x \u2028 y\n",
		"page":    "# A & B\npath: a.md\nurl: \n\n# <A>\n\n\nnot returned: b.md: not_found: page not found\n",
		"answer":  "Use <Redis> [1].\n\nconfidence: high\n\nSources:\n[1] A — a.md (/a)\n",
		"context": "1 passages (about 0 of 4000 tokens):\n\n[1]  — a.md ()\n<b>\n",
		"json":    `{"sessionId":"s1","note":"\u003c\u0026\u003e"}`,
	}
	for _, k := range resultKinds() {
		if got := string(k.res.AppendText(nil)); got != want[k.name] {
			t.Errorf("%s text %q, want %q", k.name, got, want[k.name])
		}
		if links := k.res.Links(); (k.name == "answer") != (len(links) == 1) {
			t.Errorf("%s links %+v", k.name, links)
		}
	}
	noAnswer := AnswerResult{NoAnswerReason: &NoAnswerReason{Reason: "no_evidence", Message: "nothing in scope"}, Confidence: ConfidenceLow,
		Actions: []Action{{Type: "create_feedback", Enabled: true, DedupeKey: "k1"}, {Type: "create_improvement_task", DedupeKey: "k2"}}}
	if got, want := string(noAnswer.AppendText(nil)), "No answer (no_evidence): nothing in scope\n\nconfidence: low\n\nYou can call create_feedback with dedupeKey k1 to report this.\n"; got != want {
		t.Errorf("no-answer text %q, want %q", got, want)
	}
}

// A score JSON cannot carry is an error on both fronts, as encoding/json
// refuses it, whichever writer the kind uses.
func TestResultRefusesNaN(t *testing.T) {
	nan := math.NaN()
	for name, r := range map[string]Result{
		"search":  &SearchResult{Hits: []SearchHit{{Score: nan}}},
		"answer":  &AnswerResult{Grounding: Grounding{TopScore: nan}},
		"context": &ContextPack{Items: []ContextItem{{Score: nan}}},
		"json":    JSON(nan),
	} {
		if _, err := r.AppendBody(nil); err == nil {
			t.Errorf("%s: body written", name)
		}
		if _, err := r.AppendStructured(nil); err == nil {
			t.Errorf("%s: structuredContent written", name)
		}
	}
}
