package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
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

// The one-credential rule and strict JWT decoding (docs/security.md "Authentication"),
// and MCP's credential checked before its body.

// ruleOneCredential is what the gate's refusal of two credentials says.
const ruleOneCredential = "one credential per call"

// apiKeyEnv names an optional valid API key (`wikigate key create`): with
// it, an invalid token beside the valid key is tried too.
const apiKeyEnv = "WIKIGATE_HOSTILE_API_KEY"

// credentialAttacks runs every credential check.
func credentialAttacks(ctx context.Context, t *target) []result {
	return []result{
		twoCredentials(ctx, t),
		invalidBesideValid(ctx, t),
		strictSignature(ctx, t),
		mcpExpectContinue(ctx, t),
		mcpPartialBody(ctx, t),
		mcpUnknownAgent(ctx, t),
	}
}

// twoCredentials sends two credentials at once in every pairing: each must
// be 401 naming the rule, whatever each credential is worth.
func twoCredentials(ctx context.Context, t *target) result {
	tok, fake := t.tokens.coding, "wgk_aaaaaaaa_"+strings.Repeat("A", 43)
	pairs := []http.Header{
		{"Authorization": {"Bearer " + tok}, "X-Agent-Api-Key": {fake}},
		{"Authorization": {"Bearer " + tok, "Bearer " + t.tokens.maintainer}},
		{"Authorization": {"Bearer " + tok, "Bearer " + tok}},
		{"X-Agent-Api-Key": {fake, fake}},
		{"Authorization": {"Bearer " + tok}, "X-Agent-Api-Key": {""}},
	}
	seen, unnamed := tally{}, 0
	for _, h := range pairs {
		for _, path := range []string{"/agent/tools/search", "/answer/search"} {
			r := t.post(ctx, path, h, []byte(`{"question":"agent memory"}`))
			seen.add(r.String())
			if !strings.Contains(r.message, ruleOneCredential) {
				unnamed++
			}
		}
	}
	return result{
		pass:     seen.only("401 unauthorized") && unnamed == 0,
		name:     "two-credentials",
		observed: fmt.Sprintf("status=%s not-naming-the-rule=%d", seen, unnamed),
		expected: "401 unauthorized naming the one-credential rule, tool and people routes",
	}
}

// invalidBesideValid sends a forged token beside a valid credential (the
// coding agent's token, and the key of WIKIGATE_HOSTILE_API_KEY when set):
// the valid one must not carry the invalid one through.
func invalidBesideValid(ctx context.Context, t *target) result {
	forged := resign(t.tokens.coding, "c2lnbmF0dXJlLW9mLW5vYm9keQ")
	cases := []http.Header{{"Authorization": {"Bearer " + forged, "Bearer " + t.tokens.coding}}}
	withKey := "without " + apiKeyEnv
	if key := os.Getenv(apiKeyEnv); key != "" {
		withKey = "with " + apiKeyEnv
		alone := t.post(ctx, "/agent/tools/search", http.Header{"X-Agent-Api-Key": {key}}, []byte(`{"question":"agent memory"}`))
		if alone.status != http.StatusOK {
			return result{name: "invalid-jwt-valid-key", observed: "the key alone: " + alone.String(), expected: "200 for the key of " + apiKeyEnv}
		}
		cases = append(cases, http.Header{"Authorization": {"Bearer " + forged}, "X-Agent-Api-Key": {key}})
	}
	seen := tally{}
	for _, h := range cases {
		r := t.post(ctx, "/agent/tools/search", h, []byte(`{"question":"agent memory"}`))
		seen.add(r.String())
	}
	return result{
		pass:     seen.only("401 unauthorized"),
		name:     "invalid-jwt-valid-key",
		observed: fmt.Sprintf("status=%s (%s)", seen, withKey),
		expected: "401 unauthorized: an invalid token never rides along a valid credential",
	}
}

// resign replaces a token's signature.
func resign(token, sig string) string {
	return token[:strings.LastIndexByte(token, '.')+1] + sig
}

// strictSignature presents the coding agent's own signature spelled three
// other ways that a lenient decoder reads as the same bytes: a spare bit
// set, standard base64, padding. One token has one spelling: each is 401.
func strictSignature(ctx context.Context, t *target) result {
	res := result{name: "strict-jwt-signature", expected: "401 unauthorized for every respelling, 200 for the token as minted"}
	tok, err := t.tokenWithURLSafeSignature()
	if err != nil {
		res.observed = err.Error()
		return res
	}
	sig := tok[strings.LastIndexByte(tok, '.')+1:]
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	spare := sig[:len(sig)-1] + string(alphabet[strings.IndexByte(alphabet, sig[len(sig)-1])^1]) // HS256: two spare bits
	seen := tally{}
	for _, s := range []string{spare, strings.NewReplacer("-", "+", "_", "/").Replace(sig), sig + "="} {
		r := t.post(ctx, "/agent/tools/search", bearer(resign(tok, s)), []byte(`{"question":"agent memory"}`))
		seen.add(r.String())
	}
	minted := t.post(ctx, "/agent/tools/search", bearer(tok), []byte(`{"question":"agent memory"}`))
	res.pass = seen.only("401 unauthorized") && minted.status == http.StatusOK
	res.observed = fmt.Sprintf("respelled=%s minted=%s", seen, minted)
	return res
}

// tokenWithURLSafeSignature mints coding-agent tokens until one's
// signature holds - or _, so its standard-base64 spelling differs.
func (t *target) tokenWithURLSafeSignature() (string, error) {
	now := time.Now()
	for i := range 200 {
		tok, err := t.tokens.agent(codingAgent, now.Add(-time.Duration(i)*time.Second))
		if err != nil {
			return "", err
		}
		if strings.ContainsAny(tok[strings.LastIndexByte(tok, '.')+1:], "-_") {
			return tok, nil
		}
	}
	return "", fmt.Errorf("no minted signature held - or _")
}

// mcpHead is a POST /mcp announcing a 4 KiB body, with extra header lines.
func (t *target) mcpHead(extra ...string) string {
	lines := append([]string{"POST /mcp HTTP/1.1", "Host: " + t.addr, "Content-Type: application/json",
		"Accept: application/json, text/event-stream", "Content-Length: 4096"}, extra...)
	return strings.Join(lines, "\r\n") + "\r\n\r\n"
}

// firstLine sends raw on a new connection and reads the first status
// line, within 5 s; it reports the line and how long it took.
func (t *target) firstLine(ctx context.Context, raw string) (string, time.Duration, error) {
	start := time.Now()
	c, err := t.dial(ctx)
	if err != nil {
		return "", 0, err
	}
	defer c.Close()
	_ = c.SetDeadline(start.Add(5 * time.Second))
	if _, err := c.Write([]byte(raw)); err != nil {
		return "", 0, err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line), time.Since(start), err
}

// mcpExpectContinue: a bad token on /mcp with Expect: 100-continue is 401
// at once, never 100 Continue (the HTTP tool routes' standard).
func mcpExpectContinue(ctx context.Context, t *target) result {
	res := result{name: "mcp-expect-100-bad-token", expected: "401 before the body, no 100 Continue"}
	line, took, err := t.firstLine(ctx, t.mcpHead("Expect: 100-continue", "Authorization: Bearer not.a.token"))
	if err != nil {
		res.observed = fmt.Sprintf("no reply within 5s (%v)", err)
		return res
	}
	res.observed = fmt.Sprintf("first-line=%s after=%s", strings.ReplaceAll(line, " ", "_"), took.Round(time.Millisecond))
	res.pass = strings.HasPrefix(line, "HTTP/1.1 401")
	return res
}

// mcpPartialBody: a bad token on /mcp with a body cut short is 401 without
// waiting for the rest (it waited for the read timeout, about 15 s).
func mcpPartialBody(ctx context.Context, t *target) result {
	res := result{name: "mcp-partial-body-bad-token", expected: "401 within 2s, the body never completed"}
	line, took, err := t.firstLine(ctx, t.mcpHead("Authorization: Bearer not.a.token")+`{"jsonrpc":"2.0","id":1,"me`)
	if err != nil {
		res.observed = fmt.Sprintf("no reply within 5s (%v)", err)
		return res
	}
	res.observed = fmt.Sprintf("first-line=%s after=%s", strings.ReplaceAll(line, " ", "_"), took.Round(time.Millisecond))
	res.pass = strings.HasPrefix(line, "HTTP/1.1 401") && took < 2*time.Second
	return res
}

// mcpUnknownAgent: a validly signed token for an agent the policy does not
// know is 401 at initialize, as on the tool routes.
func mcpUnknownAgent(ctx context.Context, t *target) result {
	res := result{name: "mcp-unknown-agent", expected: "401 unknown agent at initialize"}
	tok, err := t.tokens.agent("hostile-ghost-agent", time.Now())
	if err != nil {
		res.observed = err.Error()
		return res
	}
	h := bearer(tok)
	h.Set("Accept", "application/json, text/event-stream")
	r := t.post(ctx, "/mcp", h, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`))
	res.observed = fmt.Sprintf("status=%d body=%.120s", r.status, r.body)
	res.pass = r.status == http.StatusUnauthorized && strings.Contains(string(r.body), "unknown agent")
	return res
}
