package protocol

import (
	"reflect"
	"strings"
	"testing"
)

// simpleCases are bodies near the simple shape: the ones it takes, and
// the ones it must leave to the strict decoder (escapes, non-ASCII,
// duplicates, other names and cases, numbers that are not plain
// integers, trailing data).
var simpleCases = []string{
	`{}`, ` { } `, `{"question":"agent memory","limit":6}`, "{\n\t\"limit\" : 12 ,\r\n \"question\" : \"x\" }",
	`{"question":""}`, `{"limit":0}`, `{"limit":50}`, `{"limit":9999}`, `{"limit":10000}`, `{"limit":07}`,
	`{"limit":-1}`, `{"limit":6.0}`, `{"limit":6e1}`, `{"limit":"6"}`, `{"limit":null}`, `{"limit":6x}`,
	`{"question":"a\"b"}`, `{"question":"a\\b"}`, `{"question":"a\u0041"}`, `{"question":"é"}`, "{\"question\":\"\xff\"}",
	"{\"question\":\"a\tb\"}", `{"question":"a","question":"b"}`, `{"limit":1,"limit":2}`, `{"Question":"x"}`,
	`{"question":"x","scope":{"projects":["p"]}}`, `{"question":"x"}x`, `{"question":"x"}{}`, `{"question":"x",}`,
	`{"question":"x" "limit":1}`, `{"question":1}`, `{"question":"x"`, `{"question"}`, `{,}`, `{"limit":}`,
	`{"question":"~!@#$%^&*()_+{}|:<>?[];',./` + "`" + `"}`,
}

func TestSearchRequestSimpleIsStrict(t *testing.T) {
	took := 0
	for _, body := range simpleCases {
		if checkSimpleIsStrict(t, []byte(body)) {
			took++
		}
	}
	if took < 8 {
		t.Fatalf("the simple reading took only %d of the bodies", took)
	}
}

func FuzzSearchRequestSimpleIsStrict(f *testing.F) {
	for _, body := range simpleCases {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkSimpleIsStrict(t, body) })
}

// checkSimpleIsStrict fails when decodeSimple takes a body the strict
// decoder refuses or reads differently; it reports whether it took it.
func checkSimpleIsStrict(t *testing.T, body []byte) bool {
	t.Helper()
	var simple SearchRequest
	if !simple.decodeSimple(body) {
		if !reflect.DeepEqual(simple, SearchRequest{}) {
			t.Fatalf("%q: a refused body changed the request: %+v", body, simple)
		}
		return false
	}
	var strict SearchRequest
	trimmed := []byte(strings.Trim(string(body), jsonWhitespace))
	if len(trimmed) == 0 || trimmed[0] != '{' {
		t.Fatalf("%q: taken, but Decode refuses it before decoding", body)
	}
	if err := decodeStrict(trimmed, &strict); err != nil {
		t.Fatalf("%q: taken by the simple reading, refused by the strict one: %v", body, err)
	}
	if !reflect.DeepEqual(simple, strict) {
		t.Fatalf("%q: simple %+v, strict %+v", body, simple, strict)
	}
	return true
}

// Decode takes the simple reading for a search body and still refuses
// what the strict reading refuses.
func TestDecodeSearchRequestBothReadings(t *testing.T) {
	var r SearchRequest
	if err := Decode([]byte(` {"question":"agent memory","limit":6} `), &r); err != nil || r.Question != "agent memory" || r.Limit != 6 {
		t.Fatalf("%+v %v", r, err)
	}
	for _, body := range []string{`{"question":"a","question":"b"}`, `{"limit":"6"}`, `{"Question":"x"}`, `{"question":"x"}x`} {
		var r SearchRequest
		if err := Decode([]byte(body), &r); err == nil {
			t.Errorf("%s: decoded", body)
		}
	}
}

func BenchmarkDecodeSearchRequest(b *testing.B) {
	body := []byte(`{"question":"agent memory","limit":6}`)
	b.Run("strict", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r SearchRequest
			_ = decodeStrict(body, &r)
		}
	})
	b.Run("Decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r SearchRequest
			_ = Decode(body, &r)
		}
	})
}
