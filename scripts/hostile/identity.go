package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// futureIAT sends a correctly signed agent token issued an hour from now: a
// token from the future is refused (401 unauthorized).
func futureIAT(ctx context.Context, t *target) []result {
	tok, err := t.tokens.agent(codingAgent, time.Now().Add(time.Hour))
	if err != nil {
		return []result{{name: "future-iat", observed: err.Error(), expected: "a token"}}
	}
	r := t.post(ctx, "/agent/tools/search", bearer(tok), []byte(`{"question":"agent memory"}`))
	return []result{{
		pass:     r.status == http.StatusUnauthorized && r.code == "unauthorized",
		name:     "future-iat",
		observed: "status=" + r.String(),
		expected: "401 unauthorized",
	}}
}

// duplicateSessionToken sends a session turn with two X-Session-Token
// headers (both the valid token): refused like duplicate Authorization
// headers, since a proxy and the gate may pick different copies.
func duplicateSessionToken(ctx context.Context, t *target) []result {
	coding := bearer(t.tokens.coding)
	id, tok, err := createSession(ctx, t, coding)
	if err != nil {
		return []result{{name: "dup-session-token", observed: err.Error(), expected: "a session"}}
	}
	h := coding.Clone()
	h["X-Session-Token"] = []string{tok, tok}
	r := t.post(ctx, "/answer/sessions/"+id+"/turns", h, []byte(`{"question":"How do I use Redis as the memory store?"}`))
	return []result{{
		pass:     r.status == http.StatusUnauthorized && r.code == "unauthorized",
		name:     "dup-session-token",
		observed: "status=" + r.String(),
		expected: "401 unauthorized (as duplicate Authorization headers)",
	}}
}

// expectContinue sends a body-bearing request without a credential and
// with Expect: 100-continue: the gate must refuse it (401) instead of
// inviting the body with 100 Continue.
func expectContinue(ctx context.Context, t *target) []result {
	res := result{name: "expect-100-unauthenticated", expected: "401 unauthorized, no 100 Continue"}
	c, err := t.dial(ctx)
	if err != nil {
		res.observed = "dial: " + err.Error()
		return []result{res}
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "POST /agent/tools/search HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"Content-Length: 27\r\nExpect: 100-continue\r\n\r\n", t.addr)
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		res.observed = "no reply within 5s (" + err.Error() + ")"
		return []result{res}
	}
	status := strings.TrimSpace(line)
	res.observed = "first-line=" + strings.ReplaceAll(status, " ", "_")
	res.pass = strings.HasPrefix(status, "HTTP/1.1 401")
	return []result{res}
}
