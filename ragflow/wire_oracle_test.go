package ragflow

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/backend"
)

// The decoding the one-pass wireReader replaced, kept verbatim as the
// oracle of FuzzWireRetrieval and FuzzWireEvent: encoding/json into an
// envelope with raw data, then the data, then (for events) the reference.

func (c *Client) stdlibRetrieval(resp *http.Response, body []byte) (*Retrieval, error) {
	env, err := c.stdlibEnvelope(resp, body)
	if err != nil {
		return nil, err
	}
	var data struct {
		Chunks []Chunk `json:"chunks"`
		Total  int     `json:"total"`
	}
	if !isJSONObject(env.Data) || json.Unmarshal(env.Data, &data) != nil {
		return nil, badResponse("retrieval data is not {chunks, total}")
	}
	if data.Chunks == nil {
		data.Chunks = []Chunk{}
	}
	return &Retrieval{Chunks: data.Chunks, Total: data.Total}, nil
}

func (c *Client) stdlibEnvelope(resp *http.Response, body []byte) (*backend.RAGFlowEnvelope, error) {
	var env backend.RAGFlowEnvelope
	decodeErr := json.Unmarshal(body, &env)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := &Error{Kind: Rejected, HTTPStatus: resp.StatusCode}
		if decodeErr == nil && env.Code != nil {
			e.Code, e.Detail = *env.Code, c.backendDetail(env.Message)
		}
		return nil, e
	}
	if backend.IsHTML(resp.Header, body) {
		return nil, badResponse("html body")
	}
	if decodeErr != nil {
		return nil, badResponse("invalid json")
	}
	if env.Code == nil {
		return nil, badResponse("no envelope code")
	}
	if *env.Code != 0 {
		return nil, &Error{Kind: Rejected, HTTPStatus: resp.StatusCode, Code: *env.Code, Detail: c.backendDetail(env.Message)}
	}
	if stdlibG1AuthFailure(&env) {
		return nil, &Error{Kind: Rejected, HTTPStatus: resp.StatusCode, Detail: "authentication failed: " + c.backendDetail(env.Message)}
	}
	return &env, nil
}

func stdlibG1AuthFailure(env *backend.RAGFlowEnvelope) bool {
	return string(bytes.TrimSpace(env.Data)) == "false" &&
		strings.Contains(strings.ToLower(env.Message), "authorization")
}

// completionData is the data of a completion envelope or SSE event.
type stdlibEventData struct {
	Answer       string          `json:"answer"`
	Reference    json.RawMessage `json:"reference"`
	Final        bool            `json:"final"`
	StartToThink bool            `json:"start_to_think"`
	EndToThink   bool            `json:"end_to_think"`
	Usage        json.RawMessage `json:"usage"`
}

func (c *Client) stdlibHandleEvent(st *streamState, payload []byte) error {
	var env backend.RAGFlowEnvelope
	if json.Unmarshal(payload, &env) != nil || env.Code == nil {
		return badResponse("stream event is not an envelope")
	}
	if *env.Code != 0 {
		return &Error{Kind: Rejected, HTTPStatus: 200, Code: *env.Code, Detail: c.backendDetail(env.Message)}
	}
	switch data := string(bytes.TrimSpace(env.Data)); {
	case data == "true":
		st.done = true
		return nil
	case stdlibG1AuthFailure(&env):
		return &Error{Kind: Rejected, HTTPStatus: 200, Detail: "authentication failed: " + c.backendDetail(env.Message)}
	case !isJSONObject(env.Data):
		return badResponse("stream event data is not an answer")
	}
	var d stdlibEventData
	if json.Unmarshal(env.Data, &d) != nil {
		return badResponse("stream event data is malformed")
	}
	if err := c.stdlibApplyDelta(st, &d); err != nil {
		return err
	}
	if bytes.Equal(bytes.TrimSpace(d.Usage), []byte("null")) {
		d.Usage = nil // a JSON null leaves a RawMessage null, and means none
	}
	u, _ := usageFromJSON(d.Usage)
	st.noteUsage(u)
	return nil
}

func (c *Client) stdlibApplyDelta(st *streamState, d *stdlibEventData) error {
	switch {
	case d.StartToThink:
		st.thinking = true
		return nil
	case d.EndToThink:
		st.thinking = false
		return nil
	case st.thinking:
		return nil
	case isErrorAnswer(d.Answer):
		return &Error{Kind: Rejected, HTTPStatus: 200, Detail: c.backendDetail(d.Answer)}
	}
	ref, err := referenceChunks(d.Reference)
	if err != nil {
		return err
	}
	if len(ref) > 0 {
		st.reference = ref
	}
	if d.Final {
		if d.Answer != "" {
			st.answer.Reset()
			st.answer.WriteString(d.Answer)
		}
		return nil
	}
	st.answer.WriteString(d.Answer)
	if st.onText != nil && d.Answer != "" {
		st.onText(st.answer.String())
	}
	return nil
}

// wireSeeds are every JSON fixture and every SSE event of testdata, and
// the corners of encoding/json's reading rules.
func wireSeeds(f *testing.F) [][]byte {
	var out [][]byte
	files, _ := filepath.Glob("testdata/*/*.json")
	more, _ := filepath.Glob("testdata/*.json")
	for _, file := range append(files, more...) {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	streams, _ := filepath.Glob("testdata/*/*.sse")
	for _, file := range streams {
		b, _ := os.ReadFile(file)
		for _, line := range bytes.Split(b, []byte("\n")) {
			if p, ok := bytes.CutPrefix(line, []byte("data:")); ok && json.Valid(p) {
				out = append(out, p)
			}
		}
	}
	for _, s := range []string{
		`{"code":0,"data":{"chunks":[{"ID":"a","Content":"b","document_keyword":"k","kb_id":"x","similarity":null,"vector_similarity":1e999}],"total":3}}`,
		`{"code":0,"data":{"chunks":[null,{"document_metadata":{"path":"a"},"document_metadata":{"title":7},"positions":[[1,2]]}],"total":null}}`,
		`{"code":0,"data":{"chunks":[{"document_metadata":null}],"chunks":[{"id":"\ud800x\u00e9"}]},"data":{"total":2}}`,
		`{"code":0,"data":{"chunks":[5]}}`, `{"code":0,"data":{"chunks":{}}}`, `{"code":0,"data":{"total":1.5}}`,
		`{"code":"0","data":{}}`, `{"code":1.0,"data":{}}`, `{"code":0,"data":false,"message":"no Authorization"}`,
		`{"code":0,"data":true}`, `{"code":0,"data":[]}`, `{"code":0}`, `null`, `[]`, `{"code":0,"data":{}} {}`,
		`{"\u0063ode":0,"DATA":{"CHUNKS":[{"\u017fimilarity":0.5,"\u212ab_id":"k"}]}}`, "{\"code\":0,\"data\":{\"chunks\":[{\"id\":\"a\xffb\"}]}}",
		`{"code":0,"data":{"answer":"x","reference":{"chunks":[{"id":"c"}]},"final":false}}`,
		`{"code":0,"data":{"answer":"x","reference":[{"id":"c"},7],"final":null}}`,
		`{"code":0,"data":{"answer":"x","reference":"no","start_to_think":true}}`,
		`{"code":0,"data":{"answer":"x","reference":{"chunks":[1]}}}`, `{"code":0,"data":{"answer":3}}`,
		`{"code":0,"data":{"answer":"**ERROR** boom","reference":5}}`, `{"code":0,"data":{"end_to_think":"yes"}}`,
		`{"code":500,"message":"boom","data":{"answer":"**ERROR**: boom"}}`, `{"code":0,"data":{"answer":"a","final":true}}`,
	} {
		out = append(out, []byte(s))
	}
	return out
}

// FuzzWireRetrieval holds Retrieve's one-pass decoding to the old one: for
// any body, under a 2xx and a 5xx status, the same retrieval or the same
// error.
func FuzzWireRetrieval(f *testing.F) {
	for _, s := range wireSeeds(f) {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(checkWireRetrieval)
}

// checkWireRetrieval is one case of FuzzWireRetrieval.
func checkWireRetrieval(t *testing.T, body []byte, ok bool) {
	c := &Client{apiKey: testKey}
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}}
	if !ok {
		resp.StatusCode = 500
	}
	want, wantErr := c.stdlibRetrieval(resp, bytes.Clone(body))
	r := getWireReader()
	defer putWireReader(r)
	r.src.Write(body)
	h, data, decoded, dataBad := r.readRetrieval()
	var got *Retrieval
	gotErr := c.checkEnvelope(resp, body, h, decoded)
	switch {
	case gotErr != nil:
	case h.dataKind != '{' || dataBad:
		gotErr = badResponse("retrieval data is not {chunks, total}")
	default:
		if data.chunks == nil {
			data.chunks = []Chunk{}
		}
		got = &Retrieval{Chunks: data.chunks, Total: data.total}
	}
	if !reflect.DeepEqual(errorOrNil(gotErr), errorOrNil(wantErr)) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%.300q:\none-pass %.300v %v\nstdlib   %.300v %v", body, got, gotErr, want, wantErr)
	}
}

// TestWireNestingLimit: encoding/json refuses JSON nested deeper than
// 10,000 levels; the one-pass reader refuses exactly the same bodies,
// whether the deep value is read (positions) or skipped (an unknown field).
func TestWireNestingLimit(t *testing.T) {
	// The envelope, its data, the chunk list and a chunk are 4 levels.
	for _, field := range []string{"positions", "unknown"} {
		for _, depth := range []int{9995, 9996, 9997} {
			body := `{"code":0,"data":{"chunks":[{"id":"a","` + field + `":` +
				strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}]}}`
			checkWireRetrieval(t, []byte(body), true)
		}
	}
}

// FuzzWireEvent holds the SSE event's one-pass decoding to the old one:
// from the same stream state (outside and inside thinking), the same
// state after the event, or the same error.
func FuzzWireEvent(f *testing.F) {
	for _, s := range wireSeeds(f) {
		f.Add(s, false)
		f.Add(s, true)
	}
	for _, usage := range []string{`{"prompt_tokens":3,"completion_tokens":4}`, `{"PROMPT_TOKENS":3,"completion_tokens":null}`,
		`{"prompt_tokens":3.0,"completion_tokens":4}`, `[1]`, `null`, `{"prompt_tokens":99999999999999999999,"completion_tokens":1}`} {
		f.Add([]byte(`{"code":0,"data":{"answer":"a","usage":`+usage+`}}`), false)
	}
	c := &Client{apiKey: testKey}
	f.Fuzz(func(t *testing.T, payload []byte, thinking bool) {
		got, want := &streamState{thinking: thinking}, &streamState{thinking: thinking}
		got.answer.WriteString("so far")
		want.answer.WriteString("so far")
		gotErr := c.handleEvent(got, payload)
		wantErr := c.stdlibHandleEvent(want, bytes.Clone(payload))
		if !reflect.DeepEqual(errorOrNil(gotErr), errorOrNil(wantErr)) || got.answer.String() != want.answer.String() ||
			got.thinking != want.thinking || got.done != want.done || !reflect.DeepEqual(got.reference, want.reference) ||
			!reflect.DeepEqual(got.usage, want.usage) {
			t.Fatalf("%q:\none-pass %v %q %+v\nstdlib   %v %q %+v", payload, gotErr, got.answer.String(), got, wantErr, want.answer.String(), want)
		}
	})
}

// errorOrNil makes a nil *Error and a nil error compare equal.
func errorOrNil(err error) any {
	if err == nil {
		return nil
	}
	return err
}
