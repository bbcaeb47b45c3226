package ragflow

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// A completion that reports its usage (data.usage, as RAGFlow's
// OpenAI-style completions write it) carries those counts, not an
// estimate, streamed or not; a malformed usage is no usage, never a
// failed answer.
func TestCompletionCarriesReportedUsage(t *testing.T) {
	const usage = `"usage": {"prompt_tokens": 812, "completion_tokens": 57, "total_tokens": 869}`
	streamed := "data:{\"code\": 0, \"message\": \"\", \"data\": {\"answer\": \"RAGFlow is a RAG engine [ID:0].\", \"reference\": {}}}\n\n" +
		"data:{\"code\": 0, \"message\": \"\", \"data\": {\"answer\": \"\", \"final\": true, \"reference\": {}, " + usage + "}}\n\n" +
		"data:{\"code\": 0, \"message\": \"\", \"data\": true}\n\n"
	plain := `{"code": 0, "message": "success", "data": {"answer": "RAGFlow is a RAG engine [ID:0].", "reference": {}, ` + usage + `}}`
	for _, tc := range []struct {
		name, ct, body string
		stream         bool
	}{{"streamed", sseType, streamed, true}, {"one body", "application/json", plain, false}} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, serveReply(t, 200, tc.ct, []byte(tc.body)).URL)
			got, err := c.Complete(t.Context(), askMsgs, tc.stream)
			if err != nil {
				t.Fatal(err)
			}
			if want := (Usage{InputTokens: 812, OutputTokens: 57}); got.Usage != want {
				t.Fatalf("usage = %+v, want %+v", got.Usage, want)
			}
		})
	}
	t.Run("malformed usage", func(t *testing.T) {
		body := strings.Replace(plain, `"prompt_tokens": 812`, `"prompt_tokens": "812"`, 1)
		got, err := newTestClient(t, serveReply(t, 200, "application/json", []byte(body)).URL).Complete(t.Context(), askMsgs, false)
		if err != nil {
			t.Fatalf("a malformed usage failed the answer: %v", err)
		}
		if !got.Usage.Estimated || got.Answer == "" {
			t.Fatalf("a malformed usage must leave an estimate: %+v", got)
		}
	})
}

// RAGFlow's native completion reports no usage: the counts are estimated
// from the messages sent and the answer received, and marked estimated.
func TestCompletionWithoutUsageIsEstimated(t *testing.T) {
	c := newTestClient(t, serveReply(t, 200, sseType, fixture(t, "derived/completion.stream.sse")).URL)
	got, err := c.Complete(t.Context(), askMsgs, true)
	if err != nil {
		t.Fatal(err)
	}
	wantIn := EstimateTokens(askMsgs[0].Content) + messageOverhead
	if !got.Usage.Estimated || got.Usage.InputTokens != wantIn || got.Usage.OutputTokens != EstimateTokens(fixtureAnswer) {
		t.Fatalf("usage = %+v, want estimated %d in, %d out", got.Usage, wantIn, EstimateTokens(fixtureAnswer))
	}
}

func TestEstimateTokens(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"abcd", 1},
		{"abcde", 2},
		{"How do I configure agent memory?", 8}, // 32 bytes
		{"如何配置代理记忆", 8},                         // one per Han character
		{"配置 memory", 2 + 2},                    // 2 Han + " memory" (7 bytes)
	} {
		if got := EstimateTokens(tc.text); got != tc.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

// estimateTokensByRune is EstimateTokens as it was, one rune at a time:
// the reference the eight-byte ASCII path must agree with.
func estimateTokensByRune(s string) int {
	latin, wide := 0, 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if isWideScript(r) {
			wide++
		} else {
			latin += size
		}
	}
	return wide + (latin+3)/4
}

func TestEstimateTokensMatchesRuneByRune(t *testing.T) {
	parts := []string{"a", "memory ", "配置", "é", "\xff", "\xe4\xbd", "カタカナ", "한국어", "0123456789abcdef", " ", "ü.", "\n"}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 5000; n++ {
		var b strings.Builder
		for k := rng.IntN(40); k > 0; k-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		if got, want := EstimateTokens(s), estimateTokensByRune(s); got != want {
			t.Fatalf("EstimateTokens(%q) = %d, rune by rune %d", s, got, want)
		}
	}
}
