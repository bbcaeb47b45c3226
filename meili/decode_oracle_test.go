package meili

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	goccy "github.com/goccy/go-json"
)

// FuzzDecodeSearchMatchesStdlib holds the one-pass decoder to
// encoding/json's behaviour (the definition of the response's reading
// rules): for any body both accept or both refuse, and accepted bodies
// decode to the same response. The goccy/go-json decoder the client used
// before is the second oracle; it was itself held to encoding/json.
func FuzzDecodeSearchMatchesStdlib(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"hits":[{"id":12,"_formatted":{"content":7},"pathPrefixes":["a"]}]}`))
	f.Add([]byte(`{"hits":[{"id":"x","title":"\u00e9\ud83d\ude00"}],"estimatedTotalHits":3}`))
	f.Add([]byte(`{"hits":null}`))
	for _, seed := range decodeEdgeCases {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fast, fastErr := decodeSearch(200, body)
		std, stdErr := decodeSearchStdlib(body)
		if (fastErr == nil) != (stdErr == nil) {
			t.Fatalf("fast err %v, stdlib err %v", fastErr, stdErr)
		}
		if fastErr == nil && !reflect.DeepEqual(fast, std) {
			t.Fatalf("decoders disagree:\nfast   %+v\nstdlib %+v", fast, std)
		}
		old, oldErr := decodeSearchGoccy(body)
		if oldErr == nil && stdErr == nil && !reflect.DeepEqual(fast, old) {
			t.Fatalf("one-pass and goccy decoders disagree:\nfast  %+v\ngoccy %+v", fast, old)
		}
	})
}

// decodeEdgeCases are bodies where encoding/json's reading rules show:
// repeated keys, case-folded keys, nulls, escapes, invalid UTF-8, numbers
// out of range, wrong types, trailing data.
var decodeEdgeCases = []string{
	`{"hits":[{"path":"a","title":"t"},{"path":"b"}],"hits":[{"path":"c"}]}`,
	`{"hits":[{"path":"a"},{"path":"b"}],"hits":[{"url":"u"}],"hits":[{},{"title":"x"}]}`,
	`{"hits":[],"hits":null}`,
	`{"hits":null,"hits":[]}`,
	`{"HITS":[{"PATH":"p","Title":"t","_FORMATTED":{"CONTENT":"c"},"\u0069d":7}],"ProcessingTimeMS":3}`,
	"{\"hits\":[{\"\u017ftatus\":\"s\",\"\u212aey\":1,\"path\u212a\":2}]}",
	`{"hits":[{"path":null,"title":"a","title":null,"pathPrefixes":["x",null],"headings":null}]}`,
	`{"hits":[{"pathPrefixes":["x","y"]}],"hits":[{"pathPrefixes":[null]}]}`,
	`{"hits":[{"_formatted":{"content":"a","title":"b"},"_formatted":{"content":null}}]}`,
	`{"hits":[{"_formatted":{"content":{"x":[1]},"title":true}}]}`,
	`{"hits":[{"_formatted":"x"}]}`,
	`{"hits":[null,{"id":-0},{"id":18446744073709551615},{"id":-9223372036854775808}]}`,
	`{"hits":[{"id":1.0}]}`,
	`{"hits":[{"id":1e3}]}`,
	`{"hits":[{"id":true}]}`,
	`{"hits":[{"id":"\ud800x\ud83d\ude00\u00e9\n\t\"\/"}]}`,
	"{\"hits\":[{\"title\":\"bad \xff\xfe utf8\",\"k\xff\":1}]}",
	`{"hits":[{"_rankingScore":1e400}]}`,
	`{"hits":[{"_rankingScore":1e-400,"_rankingScore":null}]}`,
	`{"hits":[],"limit":9223372036854775808}`,
	`{"hits":[],"limit":1.5}`,
	`{"hits":[],"limit":"1"}`,
	`{"hits":[],"query":5}`,
	`{"hits":[1]}`,
	`{"hits":{}}`,
	`{"hits":[]} x`,
	`{"hits":[]} `,
	`{"hits":[],}`,
	`{"hits":[,]}`,
	`{"hits":[{"title":"a\x"}]}`,
	`{"hits":[{"title":"tab	in"}]}`,
	`{"hits":[],"facetDistribution":{"project":{"a":1,"b":null},"version":null}}`,
	`{"hits":[],"facetDistribution":{"project":{"a":1}},"facetDistribution":{"project":{"b":2},"x":{}}}`,
	`{"hits":[],"facetDistribution":{"p":{"a":1.5}}}`,
	`{"hits":[],"unknown":[{"deep":[1,2,{"x":null}]},-0.5e+7,true,false]}`,
	`null`,
	`[]`,
	`{"hits":[]}` + "\x00",
	`{"hits":[],"query":nul}`,
	`{"hits":[],"x":01}`,
	`{"hits":[],"x":-}`,
	`{"hits":[],"x":1.}`,
	`{"hits":[],"x":1e}`,
}

// TestDecodeSearchEdgeCases runs the edge cases against encoding/json as
// a plain test, so they hold without -fuzz.
func TestDecodeSearchEdgeCases(t *testing.T) {
	for _, body := range append(decodeEdgeCases, `{"hits":[`+strings.Repeat("[", 9997)+strings.Repeat("]", 9997)+`]}`,
		`{"hits":[`+strings.Repeat("[", 9998)+strings.Repeat("]", 9998)+`]}`) {
		fast, fastErr := decodeSearch(200, []byte(body))
		std, stdErr := decodeSearchStdlib([]byte(body))
		if (fastErr == nil) != (stdErr == nil) {
			t.Errorf("%.80q: one-pass err %v, stdlib err %v", body, fastErr, stdErr)
			continue
		}
		if fastErr == nil && !reflect.DeepEqual(fast, std) {
			t.Errorf("%.80q: decoders disagree:\nfast   %+v\nstdlib %+v", body, fast, std)
		}
	}
}

// decodeSearchGoccy is the decoder the client used before the one-pass
// reader: goccy/go-json into the tagged types.
func decodeSearchGoccy(body []byte) (*SearchResponse, error) {
	return decodeSearchWith(func(b []byte, v any) error { return goccy.Unmarshal(b, v) }, body)
}

func decodeSearchStdlib(body []byte) (*SearchResponse, error) {
	return decodeSearchWith(json.Unmarshal, body)
}

// decodeSearchWith reads body into the tagged types with unmarshal, as the
// oracles do: a response without hits is a bad response.
func decodeSearchWith(unmarshal func([]byte, any) error, body []byte) (*SearchResponse, error) {
	var wire struct {
		SearchResponse
		Hits *[]Hit `json:"hits"`
	}
	if err := unmarshal(body, &wire); err != nil {
		return nil, err
	}
	if wire.Hits == nil {
		return nil, errNoHits
	}
	resp := wire.SearchResponse
	resp.Hits = *wire.Hits
	return &resp, nil
}

var errNoHits = &Error{Kind: BadResponse}

// FuzzJSONString holds the fast string path to encoding/json: same value,
// same accept/refuse, for any literal.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`"plain"`, `"es\"caped"`, `"\u00e9"`, `"é"`, "\"tab\there\"", `"`, `""`, `"a\`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotErr := jsonString(b)
		var want string
		wantErr := json.Unmarshal(b, &want)
		if (gotErr == nil) != (wantErr == nil) || (gotErr == nil && got != want) {
			t.Fatalf("%q: fast %q %v, stdlib %q %v", b, got, gotErr, want, wantErr)
		}
	})
}
