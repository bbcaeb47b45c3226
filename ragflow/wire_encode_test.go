package ragflow

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// FuzzRequestBodies holds the hand-written request bodies to json.Marshal:
// both are valid JSON and decode to the same value, for any texts (invalid
// UTF-8, control characters, quotes, HTML) and numbers.
func FuzzRequestBodies(f *testing.F) {
	f.Add("How do I configure agent memory?", "publish/a", "ID: 0\nContent: <b>\"x\" & y\\z</b>\t\u2028", 0.2, 0, true)
	f.Add("caf\xe9 \x00\x1f\x7f", "p\xff", "\u00e9\U0001F600\ufffd", 1e-7, 1024, false)
	f.Add("", "", "", 0.0, -3, true)
	f.Fuzz(func(t *testing.T, question, path, content string, threshold float64, topK int, stream bool) {
		p := RetrieveParams{Question: question, DatasetIDs: []string{"d1", path}, Condition: PathCondition([]string{path}),
			SimilarityThreshold: threshold, TopK: topK, RerankID: content, Keyword: stream}
		req, err := retrievalBody(p)
		if err != nil {
			t.Skip()
		}
		bodies := []any{req, &retrievalRequest{Question: question}, completionRequest{Stream: stream},
			completionRequest{Messages: []Message{{Role: RoleUser, Content: content}, {Role: question, Content: path}}, Stream: stream},
			&retrievalRequest{MetadataCondition: &MetadataCondition{Logic: path, Conditions: []Condition{{Value: topK}, {Value: nil}}}}}
		for _, body := range bodies {
			want, wantErr := json.Marshal(body)
			got, gotErr := encodeBody(body)
			if (gotErr != nil) != (wantErr != nil) {
				t.Fatalf("%+v: error %v, json.Marshal %v", body, gotErr, wantErr)
			}
			if gotErr != nil {
				continue
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%q is not JSON: %v", got, err)
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("body\n%s\njson.Marshal\n%s", got, want)
			}
		}
	})
}

// A threshold JSON cannot hold fails the request before it is sent, as
// json.Marshal did.
func TestRequestBodyRefusesNaN(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1)} { // -Inf is <= 0: the default
		req, err := retrievalBody(RetrieveParams{Question: "q", DatasetIDs: []string{"d"}, SimilarityThreshold: f})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := encodeBody(req); err == nil {
			t.Errorf("threshold %v encoded", f)
		}
	}
}
