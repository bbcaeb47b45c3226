package ragflow

import (
	"encoding/json"
	"unicode"
	"unicode/utf8"
)

// Usage is what a completion cost in tokens. RAGFlow's OpenAI-compatible
// route reports it (usage.prompt_tokens, usage.completion_tokens); its
// native route, the one the gate calls, does not, so the gate then
// estimates both counts from the text it sent and received and says so
// (Estimated): budgets and metrics still count every call, and a reader
// of the audit record knows which counts are the model's own.
type Usage struct {
	InputTokens  int
	OutputTokens int
	Estimated    bool
}

// Total is input plus output tokens, what a token budget is charged.
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }

// wireUsage is a completion's usage object as RAGFlow (and OpenAI) write it.
type wireUsage struct {
	PromptTokens     *int `json:"prompt_tokens"`
	CompletionTokens *int `json:"completion_tokens"`
}

// reported is the usage a completion reported: both counts present and
// not negative, else none (the gate then estimates).
func (w wireUsage) reported() (Usage, bool) {
	if w.PromptTokens == nil || w.CompletionTokens == nil || *w.PromptTokens < 0 || *w.CompletionTokens < 0 {
		return Usage{}, false
	}
	return Usage{InputTokens: *w.PromptTokens, OutputTokens: *w.CompletionTokens}, true
}

// usageFromJSON reads a usage member; one that does not decode is no
// usage, never a failed answer (the answer itself is intact).
func usageFromJSON(raw json.RawMessage) (wireUsage, bool) {
	var w wireUsage
	if len(raw) == 0 || json.Unmarshal(raw, &w) != nil {
		return wireUsage{}, false
	}
	return w, true
}

// withUsage fills comp's Usage: the reported one, else an estimate over
// the messages sent and the answer received.
func withUsage(comp *Completion, msgs []Message, reported wireUsage) *Completion {
	if u, ok := reported.reported(); ok {
		comp.Usage = u
		return comp
	}
	in := 0
	for _, m := range msgs {
		in += EstimateTokens(m.Content) + messageOverhead
	}
	comp.Usage = Usage{InputTokens: in, OutputTokens: EstimateTokens(comp.Answer), Estimated: true}
	return comp
}

// messageOverhead is the few tokens a chat template adds per message
// (role markers), as OpenAI's cookbook counts them.
const messageOverhead = 4

// EstimateTokens approximates how many tokens a BPE tokenizer makes of s
// without one: about four bytes of Latin-script text per token, and one
// token per character of the scripts written without spaces (Han, kana,
// Hangul), which such tokenizers rarely merge. A rough estimate, and
// marked so wherever it is shown.
func EstimateTokens(s string) int {
	latin, wide := 0, 0
	for i := 0; i < len(s); {
		// A prompt is mostly ASCII: eight bytes at a time while it is
		// (every ASCII byte is Latin, one byte each), runes only past them.
		if i+8 <= len(s) && asciiWord(s[i:i+8]) {
			latin += 8
			i += 8
			continue
		}
		if s[i] < utf8.RuneSelf {
			latin++
			i++
			continue
		}
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

// asciiWord: the eight bytes of w are all ASCII.
func asciiWord(w string) bool {
	v := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	return v&0x8080808080808080 == 0
}

func isWideScript(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}
