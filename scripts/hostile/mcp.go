package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// The MCP door (/mcp) held to the HTTP routes' standard: every refusal is
// a JSON-RPC error (never the SDK's plain text), unknown and case-variant
// members are refused by name, methods of undeclared capabilities are
// -32601, no tool's inputSchema has a top-level oneOf/anyOf/allOf, and a
// 2025-11-25 stream starts with a priming event carrying an id and retry:.

const mcpMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// mcpReply is an answer of /mcp: the JSON-RPC message (the data of an SSE
// answer) and its error, if any.
type mcpReply struct {
	status      int
	contentType string
	body        string // the message, SSE framing removed
	raw         string
	header      http.Header
	code        int
	message     string
	err         error
}

func (r mcpReply) String() string {
	if r.err != nil {
		return "error(" + r.err.Error() + ")"
	}
	if r.code != 0 {
		return fmt.Sprintf("%d %d", r.status, r.code)
	}
	return fmt.Sprintf("%d %s", r.status, r.contentType)
}

// mcpDo sends one request to /mcp; hdr values "" delete a default header.
func (t *target) mcpDo(ctx context.Context, method string, hdr map[string]string, body string) mcpReply {
	req, err := http.NewRequestWithContext(ctx, method, t.base+"/mcp", strings.NewReader(body))
	if err != nil {
		return mcpReply{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+t.tokens.coding)
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return mcpReply{err: err}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	r := mcpReply{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), raw: string(b), body: sseData(b), header: resp.Header}
	var msg struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(r.body), &msg) == nil {
		r.code, r.message = msg.Error.Code, msg.Error.Message
	}
	return r
}

// sseData is the last non-empty data of an SSE body, or the body itself.
func sseData(b []byte) string {
	if !bytes.HasPrefix(b, []byte("event:")) && !bytes.HasPrefix(b, []byte("data:")) && !bytes.HasPrefix(b, []byte("id:")) {
		return string(b)
	}
	last := ""
	for _, line := range strings.Split(string(b), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok && d != "" {
			last = d
		}
	}
	return last
}

// mcpSession opens a 2025-11-25 session and returns the headers that
// address it.
func (t *target) mcpSession(ctx context.Context) (map[string]string, error) {
	r := t.mcpDo(ctx, http.MethodPost, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`)
	if r.err != nil || r.status != http.StatusOK {
		return nil, fmt.Errorf("initialize: %s %s", r, r.raw)
	}
	sid := r.header.Get("Mcp-Session-Id")
	if sid == "" {
		return nil, fmt.Errorf("initialize: no Mcp-Session-Id")
	}
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	if r := t.mcpDo(ctx, http.MethodPost, hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != http.StatusAccepted {
		return nil, fmt.Errorf("notifications/initialized: %s", r)
	}
	return hdr, nil
}

func mcpWith(base map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// mcpAttacks runs the MCP checks on one session.
func mcpAttacks(ctx context.Context, t *target) []result {
	session, err := t.mcpSession(ctx)
	if err != nil {
		return []result{{name: "mcp", observed: err.Error(), expected: "a 2025-11-25 session to attack"}}
	}
	return []result{
		mcpPlainRefusals(ctx, t, session),
		mcpStrictMembers(ctx, t, session),
		mcpUndeclaredMethods(ctx, t, session),
		mcpSchemas(ctx, t),
		mcpPriming(ctx, t, session),
	}
}

// mcpPlainRefusals: what the SDK's transport refuses is a JSON-RPC error
// too, never plain text.
func mcpPlainRefusals(ctx context.Context, t *target, session map[string]string) result {
	cases := []struct {
		method string
		hdr    map[string]string
		body   string
	}{
		{http.MethodPost, mcpWith(session, "Accept", "application/json"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{http.MethodPost, map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}`},
		{http.MethodPost, session, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"search","arguments":{"question":"q"}}}`},
		{http.MethodGet, map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Accept": "text/event-stream"}, ""},
		{http.MethodGet, mcpWith(session, "Accept", "text/event-stream", "Last-Event-ID", "not-an-event-id"), ""},
		{http.MethodDelete, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, ""},
	}
	seen, plain := tally{}, 0
	for _, c := range cases {
		r := t.mcpDo(ctx, c.method, c.hdr, c.body)
		seen.add(r.String())
		if r.status < 400 || r.contentType != "application/json" || r.code == 0 || r.message == "" {
			plain++
		}
	}
	return result{pass: plain == 0, name: "mcp-refusals-are-json-rpc", observed: fmt.Sprintf("status=%s not-json-rpc=%d", seen, plain),
		expected: "every refusal a JSON-RPC error (application/json, code and message)"}
}

// mcpStrictMembers: unknown and case-variant members are refused by name.
func mcpStrictMembers(ctx context.Context, t *target, session map[string]string) result {
	stateless := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "search"}
	cases := []struct {
		hdr  map[string]string
		body string
		code int
		name string
	}{
		{session, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","Arguments":{"question":"q"}}}`, -32602, "Arguments"},
		{stateless, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","Arguments":{"question":"q"},` + mcpMeta + `}}`, -32602, "Arguments"},
		{session, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"question":"q"},"limit":1}}`, -32602, "limit"},
		{session, `{"jsonrpc":"2.0","id":4,"method":"tools/list","ID":5}`, -32600, "ID"},
	}
	seen, unnamed := tally{}, 0
	for _, c := range cases {
		r := t.mcpDo(ctx, http.MethodPost, c.hdr, c.body)
		seen.add(r.String())
		if r.status != http.StatusBadRequest || r.code != c.code || !strings.Contains(r.message, `"`+c.name+`"`) {
			unnamed++
		}
	}
	return result{pass: unnamed == 0, name: "mcp-strict-members", observed: fmt.Sprintf("status=%s wrong=%d", seen, unnamed),
		expected: "400 -32602/-32600 naming the member"}
}

// mcpUndeclaredMethods: capabilities the server does not declare answer
// -32601 (completions, resource subscriptions; logging/setLevel on the
// stateless revision, which removed it, with HTTP 404).
func mcpUndeclaredMethods(ctx context.Context, t *target, session map[string]string) result {
	seen, wrong := tally{}, 0
	cases := []struct{ method, params string }{
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":"b"}}`},
		{"resources/subscribe", `{"uri":"wiki://main/x.md"}`},
		{"resources/unsubscribe", `{"uri":"wiki://main/x.md"}`},
	}
	for i, c := range cases {
		r := t.mcpDo(ctx, http.MethodPost, session, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, 10+i, c.method, c.params))
		seen.add(r.String())
		if r.code != -32601 {
			wrong++
		}
	}
	r := t.mcpDo(ctx, http.MethodPost, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "logging/setLevel"},
		`{"jsonrpc":"2.0","id":20,"method":"logging/setLevel","params":{"level":"info",`+mcpMeta+`}}`)
	seen.add(r.String())
	if r.status != http.StatusNotFound || r.code != -32601 {
		wrong++
	}
	return result{pass: wrong == 0, name: "mcp-undeclared-capabilities", observed: fmt.Sprintf("status=%s wrong=%d", seen, wrong), expected: "-32601 Method not found (404 on 2026-07-28)"}
}

// mcpSchemas: no tool's inputSchema has a top-level oneOf, anyOf or allOf
// (Anthropic's API refuses such tools and Claude Code drops them).
func mcpSchemas(ctx context.Context, t *target) result {
	r := t.mcpDo(ctx, http.MethodPost, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"},
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+mcpMeta+`}}`)
	var list struct {
		Result struct {
			Tools []struct {
				Name        string         `json:"name"`
				InputSchema map[string]any `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.body), &list); err != nil || len(list.Result.Tools) == 0 {
		return result{name: "mcp-input-schemas", observed: r.String(), expected: "tools/list with tools"}
	}
	var bad []string
	for _, tool := range list.Result.Tools {
		for _, k := range []string{"oneOf", "anyOf", "allOf"} {
			if _, ok := tool.InputSchema[k]; ok {
				bad = append(bad, tool.Name+"."+k)
			}
		}
	}
	return result{pass: len(bad) == 0, name: "mcp-input-schemas", observed: fmt.Sprintf("tools=%d top-level-combinators=%v", len(list.Result.Tools), bad),
		expected: "no top-level oneOf/anyOf/allOf"}
}

// mcpPriming: a 2025-11-25 stream starts with a priming event with an id
// and retry:.
func mcpPriming(ctx context.Context, t *target, session map[string]string) result {
	r := t.mcpDo(ctx, http.MethodPost, session, `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"search","arguments":{"question":"agent memory"},"_meta":{"progressToken":"p"}}}`)
	first, _, _ := strings.Cut(r.raw, "\n\n")
	ok := strings.HasPrefix(first, "event: prime\nid: ") && strings.Contains(first, "\nretry: ") && strings.Contains(r.raw, `"id":20,"result"`)
	return result{pass: ok, name: "mcp-priming-event", observed: fmt.Sprintf("status=%d first-event=%q", r.status, first),
		expected: "a priming event with id and retry:, then the result"}
}
