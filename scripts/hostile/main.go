// Command hostile attacks a running wikigate from outside, as a hostile or
// broken client would, and prints one line per attack:
//
//	PASS dup-keys status=400×9 code=invalid_request expected=400 invalid_request naming the field
//
// It exits 1 when any attack FAILs, 2 when it cannot run. It only talks to a
// loopback gate (it floods and hangs up on purpose), every connection has a
// deadline and the whole run is capped (-timeout), so it is safe to run
// against the development binary:
//
//	go build -o wikigate ./cmd/wikigate && ./wikigate run --config Caddyfile
//	go run ./scripts/hostile -gate http://127.0.0.1:8080
//
// Tokens are minted with the development JWT secret the default Caddyfile
// accepts (WIKIGATE_DEV_JWT_SECRET, else its public default).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	cfg := config{}
	flag.StringVar(&cfg.gate, "gate", "http://127.0.0.1:8080", "the gate's base URL (loopback only)")
	flag.DurationVar(&cfg.timeout, "timeout", 2*time.Minute, "cap on the whole run")
	flag.IntVar(&cfg.slowConns, "slow", 200, "unauthenticated slow-body connections")
	flag.IntVar(&cfg.flood, "flood", 5000, "anonymous sessions created by the flood")
	flag.Parse()
	os.Exit(run(cfg))
}

type config struct {
	gate      string
	timeout   time.Duration
	slowConns int
	flood     int
}

// run checks the target, runs every attack within the time cap and returns
// the exit code.
func run(cfg config) int {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	t, err := newTarget(ctx, cfg.gate)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		return 2
	}
	if err := t.preflight(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		return 2
	}
	failed := 0
	for _, a := range attacks(cfg) {
		if ctx.Err() != nil {
			fmt.Printf("FAIL %s skipped: the %s cap on the run was reached\n", a.name, cfg.timeout)
			failed++
			continue
		}
		for _, r := range a.run(ctx, t) {
			fmt.Println(r)
			if !r.pass {
				failed++
			}
		}
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// attack is one named attack; it may report several results (one per tool).
type attack struct {
	name string
	run  func(ctx context.Context, t *target) []result
}

func attacks(cfg config) []attack {
	return []attack{
		{"strict-json", strictJSONAttacks},
		{"mcp", mcpAttacks},
		{"credentials", credentialAttacks},
		{"future-iat", futureIAT},
		{"expect-100-unauthenticated", expectContinue},
		{"slow-bodies", func(ctx context.Context, t *target) []result { return slowBodies(ctx, t, cfg.slowConns) }},
		{"hangup-healthz", hangUpHealthz},
		{"hangup-tools", hangUpTools},
		{"dup-session-token", duplicateSessionToken},
		{"anonymous-session-flood", func(ctx context.Context, t *target) []result { return sessionFlood(ctx, t, cfg.flood) }},
	}
}

// result is one printed line.
type result struct {
	pass     bool
	name     string
	observed string
	expected string
}

func (r result) String() string {
	verdict := "FAIL"
	if r.pass {
		verdict = "PASS"
	}
	return fmt.Sprintf("%s %s %s expected=%s", verdict, r.name, r.observed, r.expected)
}
