package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"
)

// probeReuse is how long the gate reuses a /healthz probe (docs/protocol.md, Health): a
// hang-up is only a poisoning attempt when it starts a fresh probe.
const probeReuse = 2 * time.Second

// healthzRounds is how often the /healthz hang-up is tried: whether the
// probe is still running when the hang-up lands is a race.
const healthzRounds = 5

// hangUpHealthz resets the connection while /healthz probes the backends,
// then asks again: a caller's hang-up must not make the backends look down
// for everyone.
func hangUpHealthz(ctx context.Context, t *target) []result {
	res := result{name: "hangup-healthz", expected: "status ok, both backends reachable after each hang-up"}
	if base := t.health(ctx); base != "ok" {
		res.observed = "baseline=" + base
		return []result{res}
	}
	seen := tally{}
	for range healthzRounds {
		time.Sleep(probeReuse + 200*time.Millisecond)
		if err := t.hangUp(ctx, http.MethodGet, "/healthz", nil, nil, 2*time.Millisecond); err != nil {
			res.observed = "hang-up: " + err.Error()
			return []result{res}
		}
		time.Sleep(100 * time.Millisecond)
		seen.add(t.health(ctx))
	}
	res.observed = "healthz-after=" + seen.String()
	res.pass = seen.only("ok")
	return []result{res}
}

// hangUpTools sends each tool a valid call and resets the connection after
// 0, 5 and 25 ms, then checks that /healthz and the tool itself still work.
func hangUpTools(ctx context.Context, t *target) []result {
	routes, err := toolRoutes(ctx, t)
	if err != nil {
		return []result{{name: "hangup-tools", observed: err.Error(), expected: "a session to attack the turn route"}}
	}
	var out []result
	for _, rt := range routes {
		out = append(out, hangUpTool(ctx, t, rt))
	}
	return out
}

func hangUpTool(ctx context.Context, t *target, rt toolRoute) result {
	res := result{name: "hangup-" + rt.name, expected: "the tool answers 200 and /healthz is ok afterwards"}
	for _, d := range []time.Duration{0, 5 * time.Millisecond, 25 * time.Millisecond} {
		if err := t.hangUp(ctx, http.MethodPost, rt.path, rt.header, rt.body(""), d); err != nil {
			res.observed = "hang-up: " + err.Error()
			return res
		}
	}
	time.Sleep(100 * time.Millisecond)
	health := t.health(ctx)
	after := t.post(ctx, rt.path, rt.header, rt.body(""))
	res.observed = fmt.Sprintf("after=%s healthz=%s", after, health)
	res.pass = after.status == http.StatusOK && health == "ok"
	return res
}

// hangUp writes a whole request on a raw connection, half-closes it, waits,
// then resets it before reading anything.
func (t *target) hangUp(ctx context.Context, method, path string, header http.Header, body []byte, wait time.Duration) error {
	c, err := t.dial(ctx)
	if err != nil {
		return err
	}
	defer resetClose(c)
	req, err := http.NewRequest(method, t.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if header != nil {
		req.Header = header.Clone()
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if err := req.Write(c); err != nil {
		return err
	}
	// Half-closing first delivers the whole request and then the hang-up
	// at once: the gate sees its caller gone while the call runs, however
	// fast the backends are.
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	time.Sleep(wait)
	return nil
}

// health is /healthz's verdict: "ok", or what is wrong with it.
func (t *target) health(ctx context.Context) string {
	r := t.get(ctx, "/healthz")
	if r.err != nil {
		return "unreachable"
	}
	var h struct {
		Status   string
		Backends map[string]struct{ Reachable bool }
	}
	if err := json.Unmarshal(r.body, &h); err != nil {
		return fmt.Sprintf("%d-not-json", r.status)
	}
	for name, b := range h.Backends {
		if !b.Reachable {
			return h.Status + "(" + name + "-unreachable)"
		}
	}
	return h.Status
}
