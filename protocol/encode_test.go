package protocol

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// stdlibJSON is what encoding/json writes for v, with or without HTML
// escaping, without the Encoder's newline.
func stdlibJSON(t testing.TB, v any, escapeHTML bool) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// jsonStringCases are strings whose escaping differs somewhere: HTML
// bytes, every control byte, invalid UTF-8 (alone, truncated, in runs
// longer than a word), U+2028/U+2029, and escapes at word boundaries.
var jsonStringCases = func() []string {
	cases := []string{
		"", "plain ascii text that runs over several words of eight",
		`quote " backslash \ slash /`, "<script>&amp;</script>", "tab\tnew\nline\rcr\bback\fform",
		"\x00\x01\x1f\x7f", "é ü 日本語 🙂", "\u2028\u2029 line seps", "bad \xff byte", "trunc \xe6\x97",
		"\xed\xa0\x80 surrogate", "\xc0\xaf overlong", "1234567\"", "12345678\\", "abcdefg\x00hijklmn<",
		strings.Repeat("x", 63) + "&" + strings.Repeat("y", 9), strings.Repeat("\xff", 17),
	}
	for b := 0; b < 0x80; b++ {
		cases = append(cases, "pre"+string(rune(b))+"post-padding")
	}
	return cases
}()

func TestAppendJSONStringIsEncodingJSON(t *testing.T) {
	for _, s := range jsonStringCases {
		for _, html := range []bool{false, true} {
			want := stdlibJSON(t, s, html)
			if got := AppendJSONString([]byte("x"), s, html); string(got) != "x"+string(want) {
				t.Errorf("AppendJSONString(%q, html=%v) = %s, want %s", s, html, got[1:], want)
			}
			if got := AppendJSONString([]byte("x"), []byte(s), html); string(got) != "x"+string(want) {
				t.Errorf("AppendJSONString([]byte(%q), html=%v) = %s, want %s", s, html, got[1:], want)
			}
		}
	}
}

// TestAppendJSONStringBytesAllocateNothing: escaping bytes (the MCP
// front's text) into a buffer with room allocates nothing, multi-byte
// runes and invalid UTF-8 included.
func TestAppendJSONStringBytesAllocateNothing(t *testing.T) {
	text := []byte(strings.Repeat("日本語 <é> \\ \xff \u2028 plain words here ", 20) + "\xff")
	buf := make([]byte, 0, 8*len(text))
	if n := testing.AllocsPerRun(100, func() { buf = AppendJSONString(buf[:0], text, true) }); n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStringCases {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, html bool) {
		want := stdlibJSON(t, s, html)
		if got := AppendJSONString(nil, s, html); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSONString(%q, html=%v) = %s, want %s", s, html, got, want)
		}
		if got := AppendJSONString(nil, []byte(s), html); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSONString([]byte(%q), html=%v) = %s, want %s", s, html, got, want)
		}
	})
}

func TestSearchResultAppendJSONIsEncodingJSON(t *testing.T) {
	hit := func(i int) SearchHit {
		s := jsonStringCases[i%len(jsonStringCases)]
		return SearchHit{Path: "publish/" + s, URL: "https://wiki.example/" + s + "?a=1&b=<2>", Title: s,
			Snippet: s + " … " + s, Score: []float64{0, 1, 0.987654321, 1e-7, 1.5e21, 123456789, -0.5, 5e-324}[i%8],
			SourceProject: "kunora-" + s, Version: "main"}
	}
	results := []SearchResult{
		{},
		{Hits: []SearchHit{}, Audit: Audit{RequestID: "r1", Caller: "anonymous", Scope: "all"}},
		{Hits: []SearchHit{hit(1)}, Total: 7, Audit: Audit{RequestID: "r<2>", Caller: "a&b", Scope: "p:x/y", SessionID: "s\u2028"}},
	}
	var many []SearchHit
	for i := range len(jsonStringCases) {
		h := hit(i)
		if i%3 == 0 {
			h.Anchor = "#" + jsonStringCases[i]
		}
		many = append(many, h)
	}
	results = append(results, SearchResult{Hits: many, Total: -3, Audit: Audit{RequestID: "r", Caller: "c", Scope: "s"}})
	for i, r := range results {
		for _, html := range []bool{false, true} {
			got, err := r.AppendJSON(nil, html)
			if err != nil {
				t.Fatalf("result %d: %v", i, err)
			}
			if want := stdlibJSON(t, r, html); !bytes.Equal(got, want) {
				t.Errorf("result %d, html=%v:\n got %s\nwant %s", i, html, got, want)
			}
		}
	}
}

func TestSearchResultAppendJSONRefusesNaN(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		r := SearchResult{Hits: []SearchHit{{Score: f}}}
		if _, err := r.AppendJSON(nil, false); err != ErrUnsupportedFloat {
			t.Errorf("score %v: err = %v, want ErrUnsupportedFloat", f, err)
		}
	}
}

func BenchmarkSearchResultJSON(b *testing.B) {
	r := SearchResult{Total: 6, Audit: Audit{RequestID: "0123456789abcdef0123456789abcdef", Caller: "kunora-coding-agent", Scope: "kunora-kgent:publish/system/components/kunora-kgent@main"}}
	for i := range 6 {
		r.Hits = append(r.Hits, SearchHit{Path: "publish/system/components/kunora-kgent/memory-" + string(rune('a'+i)),
			URL: "https://wiki.example/publish/system/components/kunora-kgent/memory", Title: "Agent memory and sessions",
			Snippet: strings.Repeat("The agent keeps a short memory of the session's turns, ", 4), Score: 0.9876543 - float64(i)/10,
			SourceProject: "kunora-kgent", Version: "main"})
	}
	b.Run("encoding/json", func(b *testing.B) {
		var buf bytes.Buffer
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(r)
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = r.AppendJSON(buf[:0], false)
		}
	})
}

func TestAppendJSONStringsIsEncodingJSON(t *testing.T) {
	for _, list := range [][]string{nil, {}, {""}, jsonStringCases[:7], jsonStringCases} {
		if got, want := AppendJSONStrings(nil, list), stdlibJSON(t, list, false); !bytes.Equal(got, want) {
			t.Errorf("AppendJSONStrings(%q) = %s, want %s", list, got, want)
		}
	}
}
