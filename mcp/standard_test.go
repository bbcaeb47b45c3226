package mcp

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Every refusal on /mcp is a JSON-RPC error, including those the SDK's
// transport writes (as plain text, with http.Error).
func TestRefusalsAreJSON(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	sid := openRawSession(t, srv, "2025-11-25")
	auth := "Bearer agent:coder"
	onSession := map[string]string{"Authorization": auth, "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	with := func(base map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	cases := []struct {
		name, method string
		hdr          map[string]string
		body         string
		status       int
	}{
		{"no Accept", "POST", with(onSession, "Accept", ""), listBody, 400},
		{"unknown protocol version", "POST", map[string]string{"Authorization": auth, "Mcp-Protocol-Version": "1999-01-01"}, init, 400},
		{"tools/call without id", "POST", onSession, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"search","arguments":{"question":"q"}}}`, 400},
		{"GET without a session", "GET", map[string]string{"Authorization": auth, "Mcp-Protocol-Version": "2025-11-25", "Accept": "text/event-stream"}, "", 400},
		{"GET without Accept", "GET", with(onSession, "Accept", "application/json"), "", 400},
		{"malformed Last-Event-ID", "GET", with(onSession, "Accept", "text/event-stream", "Last-Event-ID", "nope"), "", 400},
		{"Last-Event-ID on POST", "POST", with(onSession, "Last-Event-ID", "x_1"), listBody, 400},
		{"DELETE without a session", "DELETE", map[string]string{"Authorization": auth, "Mcp-Protocol-Version": "2025-11-25"}, "", 400},
		{"GET on the stateless revision", "GET", map[string]string{"Authorization": auth, "Mcp-Protocol-Version": revisionStateless}, "", 405},
	}
	for _, c := range cases {
		resp, body := post(t, srv, c.method, c.hdr, c.body)
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d (%q)", c.name, resp.StatusCode, c.status, body)
			continue
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q, body %q; want a JSON-RPC error", c.name, ct, body)
			continue
		}
		if code, msg, _ := rpcErr(t, body); code == 0 || msg == "" || !strings.HasPrefix(body, `{"jsonrpc":"2.0"`) {
			t.Errorf("%s: %s", c.name, body)
		}
	}
	if g.calls.Load() != 0 {
		t.Errorf("the gate ran %d calls", g.calls.Load())
	}
}

// Unknown and case-variant members of the message and of params are
// refused with a message naming them, by the fast paths and the SDK path
// alike, before the gate runs anything.
func TestStrictMessage(t *testing.T) {
	statelessCall := map[string]string{"Mcp-Protocol-Version": revisionStateless, "Mcp-Method": "tools/call", "Mcp-Name": "search"}
	statelessList := map[string]string{"Mcp-Protocol-Version": revisionStateless, "Mcp-Method": "tools/list"}
	q := `,"arguments":{"question":"q"}`
	cases := []struct {
		name      string
		stateless map[string]string // nil: on a 2025-11-25 session
		body      string
		code      int
		says      string
	}{
		{"Arguments on a session", nil, strings.Replace(sessionCallBody(`1`, "search", q), `"arguments"`, `"Arguments"`, 1), codeInvalidParams, `"Arguments": names are case-sensitive, use "arguments"`},
		{"Arguments stateless", statelessCall, strings.Replace(callBody(`2`, "search", q), `"arguments"`, `"Arguments"`, 1), codeInvalidParams, `"Arguments": names are case-sensitive, use "arguments"`},
		{"unknown params member", nil, sessionCallBody(`3`, "search", q+`,"limit":3`), codeInvalidParams, `params has an unknown member "limit"`},
		{"unknown params member stateless", statelessCall, strings.Replace(callBody(`4`, "search", q), `"name"`, `"tool":"x","name"`, 1), codeInvalidParams, `params has an unknown member "tool"`},
		{"NAME", nil, sessionCallBody(`5`, "search", q+`,"NAME":"ask"`), codeInvalidParams, `use "name"`},
		{"name on tools/list", statelessList, `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"name":"x",` + metaTriple + `}}`, codeInvalidParams, `params has an unknown member "name"`},
		{"Params at the top", nil, `{"jsonrpc":"2.0","id":7,"method":"tools/list","Params":{}}`, codeInvalidRequest, `the message has a member "Params": names are case-sensitive, use "params"`},
		{"unknown top-level member", statelessList, `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{` + metaTriple + `},"extra":1}`, codeInvalidRequest, `the message has an unknown member "extra"`},
	}
	for _, noFast := range []bool{false, true} {
		g := newFakeGate()
		h, srv := server(t, g, Config{})
		h.noFast = noFast
		sid := openRawSession(t, srv, "2025-11-25")
		for _, c := range cases {
			hdr := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
			if c.stateless != nil {
				hdr = map[string]string{"Authorization": "Bearer agent:coder"}
				for k, v := range c.stateless {
					hdr[k] = v
				}
			}
			resp, body := post(t, srv, "POST", hdr, c.body)
			code, msg, _ := rpcErr(t, body)
			if resp.StatusCode != http.StatusBadRequest || code != c.code || !strings.Contains(msg, c.says) {
				t.Errorf("%s (noFast %v): %d %d %q; want 400, %d and a message with %s", c.name, noFast, resp.StatusCode, code, msg, c.code, c.says)
			}
		}
		if g.calls.Load() != 0 {
			t.Errorf("noFast %v: the gate ran %d calls", noFast, g.calls.Load())
		}
	}
}

// A rate-limited tools/call is HTTP 429 with the HTTP route's Retry-After
// and RateLimit headers, whichever path answers it (fast or SDK, stateless
// or on a session, with a priming event held back or not).
func TestRateLimitedCallIs429(t *testing.T) {
	limited := `,"arguments":{"question":"limited"}`
	progress := `{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"ask","arguments":{"question":"limited"},"_meta":{"progressToken":"t"}}}`
	for _, noFast := range []bool{false, true} {
		g := newFakeGate()
		h, srv := server(t, g, Config{})
		h.noFast = noFast
		sid := openRawSession(t, srv, "2025-11-25")
		session := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
		stateless := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Protocol-Version": revisionStateless, "Mcp-Method": "tools/call", "Mcp-Name": "search"}
		cases := []struct {
			name string
			hdr  map[string]string
			body string
			id   string
		}{
			{"stateless", stateless, callBody(`31`, "search", limited), `31`},
			{"session", session, sessionCallBody(`32`, "search", limited), `32`},
			{"session with a progress token", session, progress, `"p"`},
		}
		for _, c := range cases {
			resp, body := post(t, srv, "POST", c.hdr, c.body)
			code, _, data := rpcErr(t, body)
			if resp.StatusCode != http.StatusTooManyRequests || code != codeRateLimited || data != "rate_limited" {
				t.Errorf("%s (noFast %v): %d %s; want 429, %d, rate_limited", c.name, noFast, resp.StatusCode, body, codeRateLimited)
				continue
			}
			if resp.Header.Get("Retry-After") != "42" || resp.Header.Get("RateLimit-Policy") == "" || resp.Header.Get("RateLimit") == "" {
				t.Errorf("%s (noFast %v): headers %v", c.name, noFast, resp.Header)
			}
			if !strings.Contains(body, `"id":`+c.id+`,`) {
				t.Errorf("%s (noFast %v): the id is not echoed: %s", c.name, noFast, body)
			}
		}
	}
}

// A call cancelled with notifications/cancelled gets no response, whether
// the SDK or the session fast path runs it, and the gate sees its context
// end (the gateway audits that as client_closed).
func TestCancelledCallGetsNoResponse(t *testing.T) {
	for _, c := range []struct {
		name string
		body string
	}{
		{"fast path", sessionCallBody(`21`, "ask", `,"arguments":{"question":"slow"}`)},
		{"SDK path", `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"ask","arguments":{"question":"slow"},"_meta":{"progressToken":"t"}}}`},
	} {
		g := newFakeGate()
		_, srv := server(t, g, Config{})
		sid := openRawSession(t, srv, "2025-11-25")
		hdr := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
		type answer struct {
			status int
			body   string
		}
		got := make(chan answer, 1)
		go func() {
			resp, body := post(t, srv, "POST", hdr, c.body)
			got <- answer{resp.StatusCode, body}
		}()
		select {
		case <-g.started:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the call never started", c.name)
		}
		resp, body := post(t, srv, "POST", hdr, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":21,"reason":"user"}}`)
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("%s: cancel: %d %s", c.name, resp.StatusCode, body)
		}
		var a answer
		select {
		case a = <-got:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the cancelled call's response never ended", c.name)
		}
		if a.status != http.StatusOK || strings.Contains(a.body, `"result"`) || strings.Contains(a.body, `"error"`) {
			t.Errorf("%s: the cancelled call was answered: %d %q", c.name, a.status, a.body)
		}
		if g.closed.Load() != 1 {
			t.Errorf("%s: the gate saw %d closed calls, want 1", c.name, g.closed.Load())
		}
		// A client resuming the cancelled call's stream is not replayed a
		// response either.
		if prime, ok := strings.CutPrefix(a.body, "event: prime\nid: "); ok {
			id, _, _ := strings.Cut(prime, "\n")
			resp, replay := post(t, srv, "GET", map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Session-Id": sid,
				"Mcp-Protocol-Version": "2025-11-25", "Accept": "text/event-stream", "Last-Event-ID": id}, "")
			if resp.StatusCode != http.StatusOK || strings.Contains(replay, `"id":21`) {
				t.Errorf("%s: resuming the cancelled call's stream: %d %q", c.name, resp.StatusCode, replay)
			}
		} else if c.name == "SDK path" {
			t.Errorf("%s: the stream has no priming event: %q", c.name, a.body)
		}
	}
}

// A client that hangs up cuts its call short: the gate's context ends and
// nothing is written back (the gate used to write an isError
// ragflow_unavailable result nobody would read).
func TestHangUpCancelsTheCall(t *testing.T) {
	for _, c := range []struct {
		name    string
		noFast  bool
		session bool
	}{{"stateless fast path", false, false}, {"stateless SDK path", true, false}, {"session fast path", false, true}} {
		g := newFakeGate()
		h, srv := server(t, g, Config{})
		h.noFast = c.noFast
		hdr := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"Authorization": "Bearer agent:coder", "Mcp-Protocol-Version": revisionStateless, "Mcp-Method": "tools/call", "Mcp-Name": "ask"}
		body := callBody(`1`, "ask", `,"arguments":{"question":"slow"}`)
		if c.session {
			hdr = map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
				"Authorization": "Bearer agent:coder", "Mcp-Protocol-Version": "2025-11-25", "Mcp-Session-Id": openRawSession(t, srv, "2025-11-25")}
			body = sessionCallBody(`1`, "ask", `,"arguments":{"question":"slow"}`)
		}
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequestWithContext(ctx, "POST", "/mcp", strings.NewReader(body))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.ServeHTTP(rec, req)
		}()
		select {
		case <-g.started:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the call never started", c.name)
		}
		cancel()
		<-done
		if g.closed.Load() != 1 {
			t.Errorf("%s: the gate saw %d closed calls, want 1", c.name, g.closed.Load())
		}
		if rec.Body.Len() != 0 {
			t.Errorf("%s: a response was written after the hang-up: %q", c.name, rec.Body.String())
		}
	}
}

// A 2025-11-25 stream starts with a priming event that has an id and
// retry:, and a client that lost the stream resumes it with Last-Event-ID
// and gets the response; the GET stream names retry: too.
func TestPrimingEventAndResume(t *testing.T) {
	g := newFakeGate()
	_, srv := server(t, g, Config{})
	sid := openRawSession(t, srv, "2025-11-25")
	hdr := map[string]string{"Authorization": "Bearer agent:coder", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	resp, body := post(t, srv, "POST", hdr, `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"search","arguments":{"question":"q"},"_meta":{"progressToken":"t"}}}`)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("call: %d %s %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	prime, _, _ := strings.Cut(body, "\n\n")
	lines := strings.Split(prime, "\n")
	if len(lines) != 4 || lines[0] != "event: prime" || !strings.HasPrefix(lines[1], "id: ") || lines[2] != "retry: "+sseRetry || lines[3] != "data: " {
		t.Fatalf("the stream does not start with a priming event with an id and retry: %q", body)
	}
	if !strings.Contains(body, `"id":41,"result"`) {
		t.Fatalf("no response after the priming event: %q", body)
	}
	resume := map[string]string{"Accept": "text/event-stream", "Last-Event-ID": strings.TrimPrefix(lines[1], "id: ")}
	for k, v := range hdr {
		resume[k] = v
	}
	resp, replay := post(t, srv, "GET", resume, "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(replay, `"id":41,"result"`) {
		t.Errorf("resume from the priming event: %d %q", resp.StatusCode, replay)
	}
	if start := getStreamStartOf(t, srv, hdr); !strings.Contains(start, "retry: "+sseRetry) {
		t.Errorf("GET stream starts %q, without retry:", start)
	}
}

// getStreamStartOf opens the session's GET stream and returns its first
// bytes (the stream itself stays open until the test's context ends).
func getStreamStartOf(t *testing.T, srv *httptest.Server, hdr map[string]string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/mcp", nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	var b strings.Builder
	for !strings.Contains(b.String(), "retry:") && b.Len() < 64 {
		line, err := r.ReadString('\n')
		b.WriteString(line)
		if err == io.EOF || err != nil {
			break
		}
		if line == "\n" && strings.Count(b.String(), "\n\n") >= 2 {
			break
		}
	}
	return b.String()
}
