package meili

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecodeSearchMatchesStdlib holds the fast decoder to encoding/json's
// behaviour: for any body both accept or both refuse, and accepted bodies
// decode to the same response.
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
	f.Fuzz(func(t *testing.T, body []byte) {
		fast, fastErr := decodeSearch(200, body)
		std, stdErr := decodeSearchStdlib(body)
		if (fastErr == nil) != (stdErr == nil) {
			t.Fatalf("fast err %v, stdlib err %v", fastErr, stdErr)
		}
		if fastErr == nil && !reflect.DeepEqual(fast, std) {
			t.Fatalf("decoders disagree:\nfast   %+v\nstdlib %+v", fast, std)
		}
	})
}

func decodeSearchStdlib(body []byte) (*SearchResponse, error) {
	var wire struct {
		SearchResponse
		Hits *[]Hit `json:"hits"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
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
