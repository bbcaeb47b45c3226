package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"
)

// The gate's OpenAPI document (docs/openapi.json, which TestDocumentIsCurrent
// keeps equal to the route table and TestOpenAPIDocumentIsServed to what a
// gate serves) checks every response the shared helpers (gate.do, and
// gate.post through it) receive from a gate: for a documented operation,
// the status must be documented, the content type one of that response's,
// and a JSON body valid against its schema (JSON Schema 2020-12, OpenAPI
// 3.1's dialect, compiled with santhosh-tekuri/jsonschema, already the
// module's validator). So the document cannot drift from what the gate
// answers while the integration tests pass. Responses of routes or methods
// the document does not list (backends' logs, a 405 to a wrong method) are
// not checked here; their own tests check them.

const openAPIDocument = "../docs/openapi.json"

type openAPISpec struct {
	ops      []openAPIOp
	compiler *sjs.Compiler
	mu       sync.Mutex
	compiled map[string]*sjs.Schema // by JSON pointer into the document
}

type openAPIOp struct {
	method  string
	path    string // as documented: /answer/sessions/{sessionId}
	match   *regexp.Regexp
	pointer string // #/paths/<path>/<method>
	// responses: status ("200", "4XX", "503") → media type → whether it
	// has a schema.
	responses map[string]map[string]bool
	// events are the event names an event stream response documents.
	events map[string]bool
}

var (
	specOnce sync.Once
	spec     *openAPISpec
	specErr  error
)

func loadOpenAPI() (*openAPISpec, error) {
	specOnce.Do(func() { spec, specErr = readOpenAPI(openAPIDocument) })
	return spec, specErr
}

func readOpenAPI(path string) (*openAPISpec, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Schema json.RawMessage            `json:"schema"`
					Events map[string]json.RawMessage `json:"x-wikigate-events"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	whole, err := sjs.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := sjs.NewCompiler()
	c.DefaultDraft(sjs.Draft2020)
	if err := c.AddResource(openAPIResource, whole); err != nil {
		return nil, err
	}
	s := &openAPISpec{compiler: c, compiled: map[string]*sjs.Schema{}}
	for p, methods := range doc.Paths {
		re := regexp.MustCompile("^" + regexp.MustCompile(`\\\{[A-Za-z]+\\\}`).ReplaceAllString(regexp.QuoteMeta(p), `[^/]+`) + "$")
		for m, op := range methods {
			o := openAPIOp{method: strings.ToUpper(m), path: p, match: re,
				pointer: "#/paths/" + pointerEscape(p) + "/" + m, responses: map[string]map[string]bool{}}
			for status, r := range op.Responses {
				o.responses[status] = map[string]bool{}
				for media, c := range r.Content {
					o.responses[status][media] = len(c.Schema) > 0
					for name := range c.Events {
						if o.events == nil {
							o.events = map[string]bool{}
						}
						o.events[name] = true
					}
				}
			}
			s.ops = append(s.ops, o)
		}
	}
	// A literal path before a templated one that also matches it.
	sort.Slice(s.ops, func(i, j int) bool { return strings.Count(s.ops[i].path, "{") < strings.Count(s.ops[j].path, "{") })
	return s, nil
}

const openAPIResource = "urn:wikigate:openapi.json"

func pointerEscape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// operation is the documented operation for method and path, or nil.
func (s *openAPISpec) operation(method, path string) *openAPIOp {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	for i := range s.ops {
		if s.ops[i].method == method && s.ops[i].match.MatchString(path) {
			return &s.ops[i]
		}
	}
	return nil
}

// responseKey is the documented response a status falls under: the
// status itself, else its range (4XX), else default.
func (o *openAPIOp) responseKey(status int) (string, bool) {
	for _, k := range []string{strconv.Itoa(status), strconv.Itoa(status/100) + "XX", "default"} {
		if _, ok := o.responses[k]; ok {
			return k, true
		}
	}
	return "", false
}

// check returns what is wrong with a response to method path against the
// document, or nil; a path or method the document does not list is not
// checked.
func (s *openAPISpec) check(method, path string, status int, header http.Header, body []byte) error {
	o := s.operation(method, path)
	if o == nil {
		return nil
	}
	key, ok := o.responseKey(status)
	if !ok {
		return fmt.Errorf("%s %s answered %d, which %s does not document", method, o.path, status, openAPIDocument)
	}
	documented := o.responses[key]
	if len(documented) == 0 {
		return nil // documented without a body
	}
	media, _, err := mime.ParseMediaType(header.Get("Content-Type"))
	if err != nil {
		return fmt.Errorf("%s %s %d: content type %q: %v", method, o.path, status, header.Get("Content-Type"), err)
	}
	hasSchema, ok := documented[media]
	if !ok {
		return fmt.Errorf("%s %s %d: content type %s, the document has %v", method, o.path, status, media, mediaTypes(documented))
	}
	content := o.pointer + "/responses/" + key + "/content/" + pointerEscape(media)
	switch {
	case method == http.MethodHead || !hasSchema:
		return nil
	case media == "text/event-stream":
		return s.checkEvents(o, content, body)
	case media != "application/json":
		return nil
	}
	if err := s.validate(content+"/schema", body); err != nil {
		return fmt.Errorf("%s %s %d: the body does not match %s: %v\nbody: %.600s", method, o.path, status, openAPIDocument, err, body)
	}
	return nil
}

// checkEvents checks each event of a stream: a documented name, and data
// valid against that event's schema (x-wikigate-events).
func (s *openAPISpec) checkEvents(o *openAPIOp, content string, body []byte) error {
	for _, frame := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n\n") {
		name, data := "message", ""
		for _, line := range strings.Split(frame, "\n") {
			if v, ok := strings.CutPrefix(line, "event:"); ok {
				name = strings.TrimSpace(v)
			} else if v, ok := strings.CutPrefix(line, "data:"); ok {
				data += strings.TrimPrefix(v, " ")
			}
		}
		if data == "" {
			continue // a keep-alive comment, retry: or the end
		}
		if !o.events[name] {
			return fmt.Errorf("%s %s streamed event %q, which %s does not document", o.method, o.path, name, openAPIDocument)
		}
		if err := s.validate(content+"/x-wikigate-events/"+pointerEscape(name), []byte(data)); err != nil {
			return fmt.Errorf("%s %s: event %s does not match %s: %v\ndata: %.600s", o.method, o.path, name, openAPIDocument, err, data)
		}
	}
	return nil
}

// validate checks a JSON text against the schema at pointer.
func (s *openAPISpec) validate(pointer string, body []byte) error {
	sch, err := s.schema(pointer)
	if err != nil {
		return err
	}
	v, err := sjs.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("not JSON: %v: %.200s", err, body)
	}
	return sch.Validate(v)
}

// schema compiles the schema at pointer in the document once.
func (s *openAPISpec) schema(pointer string) (*sjs.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[pointer]; ok {
		return sch, nil
	}
	sch, err := s.compiler.Compile(openAPIResource + pointer)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", pointer, err)
	}
	s.compiled[pointer] = sch
	return sch, nil
}

func mediaTypes(content map[string]bool) []string {
	var out []string
	for m := range content {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// checkResponse is the hook in gate.do: a response from the gate g.url
// that the document describes otherwise fails the test.
func (g *gate) checkResponse(req *http.Request, status int, header http.Header, body []byte) {
	g.t.Helper()
	if g.url == "" || !strings.HasPrefix(req.URL.String(), g.url+"/") {
		return // a backend's request log, or another server
	}
	s, err := loadOpenAPI()
	if err != nil {
		g.t.Fatalf("OpenAPI document: %v", err)
	}
	if err := s.check(req.Method, req.URL.Path, status, header, body); err != nil {
		g.t.Errorf("response differs from the OpenAPI document: %v", err)
	}
}

// checkStreamEvents checks the events of a streamed answer, read by the
// stream tests' own client (checkSequence), against the event schemas the
// document gives the ask routes' event streams.
func checkStreamEvents(t *testing.T, evs []gateEvent) {
	t.Helper()
	s, err := loadOpenAPI()
	if err != nil {
		t.Fatalf("OpenAPI document: %v", err)
	}
	o := s.operation(http.MethodPost, "/agent/tools/ask")
	if o == nil {
		t.Fatal("the OpenAPI document has no POST /agent/tools/ask")
	}
	var body strings.Builder
	for _, ev := range evs {
		body.WriteString("event: " + ev.name + "\ndata: " + ev.data + "\n\n")
	}
	if err := s.checkEvents(o, o.pointer+"/responses/200/content/text~1event-stream", []byte(body.String())); err != nil {
		t.Errorf("stream differs from the OpenAPI document: %v", err)
	}
}

// TestOpenAPIResponseCheckRefusesWhatTheDocumentDoesNotSay: the hook in
// gate.do fails a test on a body, status or content type the document
// does not describe, and passes the gate's own refusal.
func TestOpenAPIResponseCheckRefusesWhatTheDocumentDoesNotSay(t *testing.T) {
	s, err := loadOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	js := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	sse := http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}
	refusal := `{"error":{"code":"forbidden_tool","message":"tool ask is not granted","requestId":"req_1"}}`
	cases := []struct {
		name, method, path string
		status             int
		header             http.Header
		body               string
		ok                 bool
	}{
		{"a refusal", "POST", "/agent/tools/ask", 403, js, refusal, true},
		{"a session route's refusal", "GET", "/answer/sessions/s_1", 404, js, refusal, true},
		{"an answer missing its members", "POST", "/agent/tools/ask", 200, js, `{"answer":"a"}`, false},
		{"a refusal with a stack trace", "POST", "/agent/tools/search", 500, js, `{"error":{"code":"internal","message":"m","requestId":"r","stack":"x"}}`, false},
		{"an undocumented status", "POST", "/agent/tools/search", 201, js, `{}`, false},
		{"an undocumented content type", "POST", "/agent/tools/search", 400, http.Header{"Content-Type": {"text/plain"}}, "bad", false},
		{"an undocumented route", "POST", "/nowhere", 404, nil, "", true},
		{"a stream", "POST", "/answer/ask", 200, sse, "event: status\nid: 1\ndata: {\"stage\":\"retrieving\",\"message\":\"retrieving\"}\n\n: keep-alive\n\nevent: done\nid: 2\ndata: {}\n\n", true},
		{"a stream with an undocumented event", "POST", "/answer/ask", 200, sse, "event: progress\ndata: {}\n\n", false},
		{"a stream whose delta lacks its text", "POST", "/agent/tools/ask", 200, sse, "event: delta\ndata: {\"txt\":\"a\"}\n\n", false},
	}
	for _, c := range cases {
		err := s.check(c.method, c.path, c.status, c.header, []byte(c.body))
		if (err == nil) != c.ok {
			t.Errorf("%s: passes %v, want %v (%v)", c.name, err == nil, c.ok, err)
		}
	}
}
