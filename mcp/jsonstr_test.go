package mcp

import (
	"encoding/json"
	"testing"

	"github.com/wikigate/wikigate/protocol"
)

// TestAppendJSONStringIsEncodingJSON holds appendJSONString to
// json.Marshal's bytes, on the strings where encoders differ.
func TestAppendJSONStringIsEncodingJSON(t *testing.T) {
	cases := []string{
		"", "plain text", `"quoted" \ back\slash`, "<a href='x'>&amp;</a>", "tab\tnl\ncr\rbs\bff\f",
		"\x00\x01\x1f\x7f", "é — ü 日本", "\u2028 and \u2029", "bad \xff utf-8 \xc3", "emoji 🧠 end",
		"\xed\xa0\x80 surrogate", "trailing \xe2\x80",
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := appendJSONString([]byte("x"), []byte(s)); string(got) != "x"+string(want) {
			t.Errorf("%q: got %s, want %s", s, got[1:], want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	f.Add("<\u2028\xff>")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, []byte(s)); string(got) != string(want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// BenchmarkAppendJSONString escapes the text rendering of six bench hits.
func BenchmarkAppendJSONString(b *testing.B) {
	text := (&protocol.SearchResult{Total: 6, Hits: benchHits(6)}).AppendText(nil)
	buf := make([]byte, 0, 2*len(text))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		buf = appendJSONString(buf[:0], text)
	}
}
