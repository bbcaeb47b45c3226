package mcp

import (
	"bytes"
	"net/textproto"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json"
)

// decodeFastUnmarshal and decodeSessionCallUnmarshal are the fast paths'
// decoders before scanFast: go-json-experiment's strict Unmarshal into
// fastRequest (exact names, no unknown members, no duplicates, valid
// UTF-8), then the shapes of clientCapabilities and clientInfo. They are
// the reference scanFast is held to: it may decline more, never accept
// more, and must read what they read.
func decodeFastUnmarshal(body []byte) (*fastRequest, bool) {
	var req fastRequest
	if json.Unmarshal(body, &req, strictRef) != nil || req.JSONRPC != "2.0" || !fastMethods[req.Method] ||
		req.Params == nil || req.Params.Meta == nil {
		return nil, false
	}
	m := req.Params.Meta
	if m.ProtocolVersion != revisionStateless || m.ClientCapabilities.Kind() != '{' {
		return nil, false
	}
	if json.Unmarshal(m.ClientCapabilities, new(refCapabilities), strictRef) != nil {
		return nil, false
	}
	if m.ClientInfo != nil && (m.ClientInfo.Kind() != '{' || json.Unmarshal(m.ClientInfo, new(refImplementation), strictRef) != nil) {
		return nil, false
	}
	return &req, simpleID(req.ID)
}

func decodeSessionCallUnmarshal(body []byte) (*fastRequest, bool) {
	var req fastRequest
	if json.Unmarshal(body, &req, strictRef) != nil || req.JSONRPC != "2.0" || req.Method != "tools/call" ||
		req.Params == nil || req.Params.Meta != nil || req.Params.Name == nil {
		return nil, false
	}
	return &req, simpleID(req.ID)
}

var strictRef = json.JoinOptions(json.RejectUnknownMembers(true))

// refImplementation is the clientInfo members the SDK decodes as strings.
type refImplementation struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Version     string `json:"version"`
	WebsiteURL  string `json:"websiteUrl"`
}

// refCapabilities is the subset of client capabilities the fast path
// accepts: none, or roots.
type refCapabilities struct {
	Roots *struct {
		ListChanged bool `json:"listChanged"`
	} `json:"roots"`
}

// sameRequest reports whether two decoded requests say the same thing in
// every field the fast paths read.
func sameRequest(a, b *fastRequest) bool {
	if a.JSONRPC != b.JSONRPC || a.Method != b.Method || !bytes.Equal(a.ID, b.ID) || (a.Params == nil) != (b.Params == nil) {
		return false
	}
	if a.Params == nil {
		return true
	}
	p, q := a.Params, b.Params
	if (p.Name == nil) != (q.Name == nil) || (p.Name != nil && *p.Name != *q.Name) ||
		!bytes.Equal(p.Arguments, q.Arguments) || (p.Arguments == nil) != (q.Arguments == nil) || (p.Meta == nil) != (q.Meta == nil) {
		return false
	}
	if p.Meta == nil {
		return true
	}
	m, n := p.Meta, q.Meta
	return m.ProtocolVersion == n.ProtocolVersion && bytes.Equal(m.ClientInfo, n.ClientInfo) &&
		(m.ClientInfo == nil) == (n.ClientInfo == nil) && bytes.Equal(m.ClientCapabilities, n.ClientCapabilities)
}

// checkScan compares both fast decoders with their references on body.
func checkScan(t *testing.T, body []byte) (fast, session bool) {
	t.Helper()
	for _, d := range []struct {
		name      string
		got, want func([]byte) (*fastRequest, bool)
		ok        *bool
	}{
		{"decodeFast", decodeFast, decodeFastUnmarshal, &fast},
		{"decodeSessionCall", decodeSessionCall, decodeSessionCallUnmarshal, &session},
	} {
		got, ok := d.got(bytes.Clone(body))
		want, wantOK := d.want(bytes.Clone(body))
		*d.ok = ok
		switch {
		case ok && !wantOK:
			t.Fatalf("%s accepts what its reference refuses: %q", d.name, body)
		case ok && !sameRequest(got, want):
			t.Fatalf("%s reads %+v, its reference %+v: %q", d.name, got, want, body)
		}
	}
	return fast, session
}

// scanBodies are requests the fast paths must keep taking (every shape a
// client commonly sends), then ones that must be declined.
var scanBodies = struct{ fast, session, neither []string }{
	fast: []string{
		benchCallBody,
		callBody(`"c1"`, "search", `,"arguments":{"question":"agent memory"}`),
		callBody(`-7`, "ask", `,"arguments":{"question":"é \u00e9 \" \\ <a>","scope":{"projects":["a","b"],"n":[1,2.5e3,true,false,null,{}]}}`),
		callBody(`0`, "search", ``),
		callBody(`5`, "search", `,"arguments":null`),
		callBody(`6`, "search", `,"arguments":[1]`),
		callBody(`7`, "search", `,"arguments":"x"`),
		callBody(`8`, "nope", `,"arguments":{}`),
		" \r\n\t{ \"params\" : { \"_meta\" : { \"io.modelcontextprotocol/clientCapabilities\" : { \"roots\" : { \"listChanged\" : false } } ," +
			" \"io.modelcontextprotocol/protocolVersion\" : \"2026-07-28\" } , \"arguments\" : { } , \"name\" : \"search\" } ," +
			" \"method\" : \"tools/call\" , \"id\" : \"a b\" , \"jsonrpc\" : \"2.0\" } \n",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientInfo":{"name":"Ünïcode","title":"t","description":"d","version":"1","websiteUrl":"https://x"},"io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}}`,
		`{"jsonrpc":"2.0","id":20,"method":"tools/list","params":{` + metaTriple + `}}`,
	},
	session: []string{
		sessionCallBody(`1`, "search", `,"arguments":{"question":"q"}`),
		sessionCallBody(`"s"`, "ask", ``),
		sessionCallBody(`2`, "x", `,"arguments":null`),
	},
	neither: []string{
		``, `{}`, `[]`, `null`, `{"jsonrpc":"2.0"}`,
		strings.Replace(benchCallBody, `"id":1`, `"id":1,"id":2`, 1),
		strings.Replace(benchCallBody, `"id":1`, `"id":1.0`, 1),
		strings.Replace(benchCallBody, `"id":1`, `"id":01`, 1),
		strings.Replace(benchCallBody, `"id":1`, `"id":null`, 1),
		strings.Replace(benchCallBody, `"id":1`, `"id":"\u0041"`, 1),
		strings.Replace(benchCallBody, `"2.0"`, `"1.0"`, 1),
		strings.Replace(benchCallBody, `"jsonrpc"`, `"json\u0072pc"`, 1),
		strings.Replace(benchCallBody, `"name":"search"`, `"name":"search","name":"ask"`, 1),
		strings.Replace(benchCallBody, `"limit":6}`, `"limit":6,"limit":7}`, 1),
		strings.Replace(benchCallBody, `"limit":6}`, `"limit":6,"x":"\xff"}`, 1),
		strings.Replace(benchCallBody, `"limit":6}`, `"limit":06}`, 1),
		strings.Replace(benchCallBody, `"version":"1"`, `"version":"1","icons":[]`, 1),
		strings.Replace(benchCallBody, `"version":"1"`, `"version":null`, 1),
		strings.Replace(benchCallBody, `Capabilities":{}`, `Capabilities":{"sampling":{}}`, 1),
		strings.Replace(benchCallBody, `Capabilities":{}`, `Capabilities":{"roots":{"listChanged":1}}`, 1),
		strings.Replace(benchCallBody, `"2026-07-28"`, `"2026-07-29"`, 1),
		strings.Replace(benchCallBody, `"_meta":{`, `"_meta":{"progressToken":1,`, 1),
		strings.Replace(benchCallBody, `"tools/call"`, `"tools/read"`, 1),
		benchCallBody + `{}`, benchCallBody + `x`, benchCallBody[:len(benchCallBody)-1],
	},
}

// TestScanFastMatchesUnmarshal holds scanFast to its reference on the
// shapes clients send: the fast ones must still be taken, read the same.
func TestScanFastMatchesUnmarshal(t *testing.T) {
	for _, body := range scanBodies.fast {
		if fast, _ := checkScan(t, []byte(body)); !fast {
			t.Errorf("decodeFast declines %s", body)
		}
	}
	for _, body := range scanBodies.session {
		if _, session := checkScan(t, []byte(body)); !session {
			t.Errorf("decodeSessionCall declines %s", body)
		}
	}
	for _, body := range scanBodies.neither {
		if fast, session := checkScan(t, []byte(body)); fast || session {
			t.Errorf("a fast decoder takes %q", body)
		}
	}
	for _, c := range fastCases() {
		checkScan(t, []byte(c.body))
	}
}

// FuzzScanFastMatchesUnmarshal: whatever scanFast accepts, the strict
// Unmarshal-based decoder accepts and reads the same way.
func FuzzScanFastMatchesUnmarshal(f *testing.F) {
	for _, body := range scanBodies.fast {
		f.Add([]byte(body))
	}
	for _, body := range scanBodies.session {
		f.Add([]byte(body))
	}
	for _, body := range scanBodies.neither {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkScan(t, body)
	})
}

// BenchmarkDecodeFast is the read of bench run M's request body.
func BenchmarkDecodeFast(b *testing.B) {
	body := []byte(benchCallBody)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := decodeFast(body); !ok {
			b.Fatal("declined")
		}
	}
}

// benchCallBody is bench run M's request body (bench/run.sh, M_BODY).
const benchCallBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"question":"agent memory","limit":6},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`

// Deeply nested arguments are declined, not read with a depth limit of
// their own.
func TestScanFastDeclinesDeepArguments(t *testing.T) {
	deep := strings.Repeat("[", 9999) + strings.Repeat("]", 9999)
	body := strings.Replace(benchCallBody, `{"question":"agent memory","limit":6}`, deep, 1)
	if _, ok := decodeFast([]byte(body)); ok {
		t.Error("decodeFast takes arguments 9,999 levels deep")
	}
	if fast, _ := checkScan(t, []byte(strings.Replace(body, deep, `[[[[{"a":[{}]}]]]]`, 1))); !fast {
		t.Error("decodeFast declines arguments a few levels deep")
	}
}

// The header names read straight from the map (headerGet, headerValues)
// must be spelled as net/http stores them.
func TestHeaderNamesAreCanonical(t *testing.T) {
	for _, name := range []string{headerProtocolVersion, headerSessionID, headerMethod, headerName, headerExchange,
		headerOrigin, headerContentType, headerAccept, headerLastEventID} {
		if c := textproto.CanonicalMIMEHeaderKey(name); c != name {
			t.Errorf("%q is stored as %q", name, c)
		}
	}
}
