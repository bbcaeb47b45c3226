package jsonscan

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestPlainWord holds the eight-byte test to the byte table for every
// byte in every position of a word of plain bytes.
func TestPlainWord(t *testing.T) {
	base := []byte("abcdefgh")
	for pos := range 8 {
		for c := range 256 {
			w := bytes.Clone(base)
			w[pos] = byte(c)
			want := true
			for _, b := range w {
				want = want && plainASCII[b]
			}
			if got := plainWord(binary.LittleEndian.Uint64(w)); got != want {
				t.Fatalf("plainWord(%q) = %v, want %v", w, got, want)
			}
		}
	}
	// Words of several such bytes (the word tricks' borrows run upward).
	edges := []byte{0, 1, 0x1f, ' ', '!', '"' - 1, '"', '"' + 1, '\\' - 1, '\\', '\\' + 1, 0x7f, 0x80, 0xff, 'a'}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var w [8]byte
		want := true
		for i := range w {
			w[i] = edges[rng.IntN(len(edges))]
			want = want && plainASCII[w[i]]
		}
		if got := plainWord(binary.LittleEndian.Uint64(w[:])); got != want {
			t.Fatalf("plainWord(%q) = %v, want %v", w, got, want)
		}
	}
}

// FuzzScannerMatchesEncodingJSON holds the scanner to encoding/json on
// any input: it accepts exactly the texts json.Valid accepts, reads a
// string as json.Unmarshal does, and reads an object's keys as the names
// json.Unmarshal gives (KeyString included).
func FuzzScannerMatchesEncodingJSON(f *testing.F) {
	for _, seed := range []string{`"plain"`, `"esc\"aped \u00e9 \ud83d\ude00 \ud800"`, "\"bad \xff utf8\"", `{"a":1,"b\u0063":[true,false,null,-1.5e3]}`,
		`[1,2`, `{"a" 1}`, `01`, `"ctl` + "\x01" + `"`, `  {"k": {"n": [[], {}]}}  `, `tru`, `{"a":1}x`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Scanner
		s.Init(data)
		err := s.Skip()
		if err == nil {
			err = s.End()
		}
		if valid := json.Valid(data); valid != (err == nil) {
			t.Fatalf("%q: json.Valid %v, scanner error %v", data, valid, err)
		}
		if err != nil {
			return
		}
		var str string
		// json.Unmarshal takes null into a string too (leaving it); the
		// scanner's callers read null themselves and StringValue only
		// after peeking '"'.
		if s.Init(data); json.Unmarshal(data, &str) == nil && s.Peek() == '"' {
			if got, err := s.StringValue(); err != nil || got != str {
				t.Fatalf("%q: StringValue %q, %v; json.Unmarshal %q", data, got, err, str)
			}
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) == nil && bytes.TrimSpace(data)[0] == '{' {
			compareKeys(t, data, obj)
		}
	})
}

// compareKeys reads the top-level keys of the object data with Key and
// KeyString and wants the names json.Unmarshal gave.
func compareKeys(t *testing.T, data []byte, obj map[string]json.RawMessage) {
	t.Helper()
	var s Scanner
	s.Init(data)
	s.Peek()
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for more := s.First('}'); more; {
		k, err := s.Key()
		if err != nil {
			t.Fatalf("%q: Key: %v", data, err)
		}
		name := s.KeyString(k)
		if string(k) != name {
			t.Fatalf("%q: Key %q, KeyString %q", data, k, name)
		}
		if _, ok := obj[name]; !ok {
			t.Fatalf("%q: key %q is not one json.Unmarshal read", data, name)
		}
		seen[name] = true
		if err := s.Skip(); err != nil {
			t.Fatal(err)
		}
		if more, err = s.Next('}'); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != len(obj) {
		t.Fatalf("%q: keys %v, json.Unmarshal %v", data, seen, obj)
	}
}
