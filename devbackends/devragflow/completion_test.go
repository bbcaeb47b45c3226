package devragflow

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// gatePrompt lays out context the way the gate does: ID blocks, then the
// question.
const gatePrompt = "Answer from the context only and cite it as [ID:n].\n\n" +
	"ID: 0\n├── Title: kunora-kgent overview\n├── URL: /system/components/kunora-kgent/\n└── Content:\n" +
	"kunora-kgent is the agent runtime of the Kunora platform. It ships as one binary.\n\n" +
	"ID: 1\nTitle: Deployment\nDeploy kunora-kgent with the helm chart. The chart installs one runtime per namespace.\n" +
	"## Helm values\nSet replicas in values.yaml.\n\n" +
	"Question: How do I deploy kunora-kgent with helm?"

func complete(t *testing.T, s *Server, body map[string]any) map[string]any {
	t.Helper()
	if _, has := body["stream"]; !has {
		body["stream"] = false
	}
	return decode(t, post(t, s, "/api/v1/chat/completions", body))
}

func userMessage(content any) map[string]any {
	return map[string]any{"messages": []any{map[string]any{"role": "user", "content": content}}}
}

func TestCompletionValidation(t *testing.T) {
	s := newTestServer(t)
	user := map[string]any{"role": "user", "content": "hi"}
	tests := []struct {
		name string
		body map[string]any
		want map[string]any
	}{
		{"messages missing", map[string]any{}, jsonResult(101, "required argument are missing: messages; ", nil)},
		{"messages empty", map[string]any{"messages": []any{}}, jsonResult(101, "`messages` must be a non-empty list.", nil)},
		{"messages not a list", map[string]any{"messages": "hi"}, jsonResult(101, "`messages` must be a non-empty list.", nil)},
		{"last from assistant", map[string]any{"messages": []any{user, map[string]any{"role": "assistant", "content": "x"}}},
			jsonResult(101, "The last message must be from user.", nil)},
		{"only system", map[string]any{"messages": []any{map[string]any{"role": "system", "content": "x"}}},
			jsonResult(101, "The last message must be from user.", nil)},
		{"chat_id given", map[string]any{"messages": []any{user}, "chat_id": "abc"}, fixture(t, "error.chat_not_owned.json")},
		{"session without chat", map[string]any{"messages": []any{user}, "session_id": "abc"},
			errorResult(102, "`chat_id` is required when `session_id` is provided.")},
		{"unknown llm", map[string]any{"messages": []any{user}, "llm_id": "gpt-x"},
			errorResult(102, "Cannot use specified model gpt-x.")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := map[string]any{}
			for k, v := range tc.want {
				want[k] = v
			}
			sameJSON(t, complete(t, s, tc.body), want)
		})
	}
}

var marker = regexp.MustCompile(`\[ID:(\d+)\]`)

func TestCompletionExtractiveAnswerCitesExistingBlocks(t *testing.T) {
	s := newTestServer(t)
	body := userMessage(gatePrompt)
	body["messages"].([]any)[0].(map[string]any)["id"] = "msg-1"
	out := complete(t, s, body)
	if out["code"] != 0.0 || out["message"] != "success" {
		t.Fatalf("body = %v", out)
	}
	data := out["data"].(map[string]any)
	answer := data["answer"].(string)
	ids := marker.FindAllStringSubmatch(answer, -1)
	if len(ids) == 0 || len(ids) > 3 {
		t.Fatalf("answer %q has %d markers, want 1..3", answer, len(ids))
	}
	for _, m := range ids {
		if n, _ := strconv.Atoi(m[1]); n != 0 && n != 1 {
			t.Errorf("marker [ID:%d] points at no block", n)
		}
	}
	if !strings.HasPrefix(answer, "Deploy kunora-kgent with the helm chart. [ID:1]") {
		t.Errorf("answer = %q, want the helm sentence first", answer)
	}
	for _, s := range marker.Split(answer, -1) {
		if s = strings.TrimSpace(s); s != "" && !strings.Contains(gatePrompt, s) {
			t.Errorf("sentence %q is not extracted from the prompt", s)
		}
	}
	if strings.Contains(answer, "Title:") || strings.Contains(answer, "##") {
		t.Errorf("answer quotes field labels or headings: %q", answer)
	}
	if data["id"] != "msg-1" || data["session_id"] != "" || data["prompt"] != "" {
		t.Errorf("id/session_id/prompt = %v/%v/%v", data["id"], data["session_id"], data["prompt"])
	}
}

func TestCompletionResponseKeys(t *testing.T) {
	s := newTestServer(t)
	data := complete(t, s, userMessage(gatePrompt))["data"].(map[string]any)
	var want []string
	for k := range fixture(t, "completion.response.json")["data"].(map[string]any) {
		if k != "chat_id" { // only present when a chat assistant was used
			want = append(want, k)
		}
	}
	if got := strings.Join(sorted(keysOf(data)), ","); got != strings.Join(sorted(want), ",") {
		t.Errorf("data keys = %s, want %v", got, sorted(want))
	}
	if _, ok := data["created_at"].(float64); !ok {
		t.Errorf("created_at = %#v, want epoch seconds", data["created_at"])
	}
	if ref, _ := data["reference"].(map[string]any); len(ref) != 1 || len(ref["chunks"].([]any)) != 0 {
		t.Errorf("reference = %v, want {chunks: []}", data["reference"])
	}
}

func TestCompletionEmptyResponse(t *testing.T) {
	tests := []struct{ name, prompt string }{
		{"no context blocks", "Question: How do I deploy kunora-kgent?"},
		{"nothing matches", "ID: 0\nThe gateway limits requests.\n\nQuestion: How do I deploy kunora-kgent?"},
		{"question only stopwords", "ID: 0\nThe gateway limits requests.\n\nQuestion: what is it?"},
	}
	s := newTestServer(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := complete(t, s, userMessage(tc.prompt))["data"].(map[string]any)
			if data["answer"] != DefaultEmptyResponse {
				t.Errorf("answer = %q, want the empty response", data["answer"])
			}
		})
	}
	custom, err := New(Config{APIKey: testKey, Corpus: testCorpus(t), EmptyResponse: `Nothing <here> & "there"`})
	if err != nil {
		t.Fatal(err)
	}
	data := complete(t, custom, userMessage("Question: anything"))["data"].(map[string]any)
	if want := "Nothing &lt;here&gt; &amp; &quot;there&quot;"; data["answer"] != want {
		t.Errorf("answer = %q, want the HTML-escaped %q", data["answer"], want)
	}
}

func TestCompletionQuestionShorthand(t *testing.T) {
	s := newTestServer(t)
	out := complete(t, s, map[string]any{"question": "ID: 0\nkgent runs agents.\nQuestion: what runs agents?"})
	if out["code"] != 0.0 || out["data"].(map[string]any)["answer"] != "kgent runs agents. [ID:0]" {
		t.Errorf("body = %v", out)
	}
}

func TestCompletionNonStringContentIsAnException(t *testing.T) {
	s := newTestServer(t)
	out := complete(t, s, userMessage([]any{"parts"}))
	sameJSON(t, out, map[string]any{"code": 100, "data": nil,
		"message": `TypeError("expected string or bytes-like object, got 'list'")`})
}

func TestParsePrompt(t *testing.T) {
	blocks, question := parsePrompt("intro\nID: 3 first line\nmore\nQuestion: what\nelse?\nID: 4\nlate")
	if len(blocks) != 2 || blocks[0].id != 3 || blocks[1].id != 4 {
		t.Fatalf("blocks = %+v", blocks)
	}
	if strings.Join(blocks[0].lines, "|") != "first line|more" {
		t.Errorf("block 3 lines = %q", blocks[0].lines)
	}
	if question != "what\nelse?" {
		t.Errorf("question = %q", question)
	}
	if _, q := parsePrompt("just ask"); q != "just ask" {
		t.Errorf("question without a Question: line = %q, want the whole message", q)
	}
}
