// Command reloadp99 measures what a policy reload costs the callers of the
// moment: it drives B's call (POST /agent/tools/search) with 32 concurrent
// connections, rewrites the gate's policy data with the same grants in
// other bytes (a new revision, nothing else changed) after a second, waits
// for /healthz to name the new revision, and compares the p99 latency of
// the calls started in the second after the swap with the second before
// the rewrite. Without cache warming every caller's next call after a
// reload is evaluated at once; with it they are hits (policies/warm.go).
// B repeats one call, so a reload costs it one evaluation; -vary N spreads
// the calls over N distinct scopes (sub-paths of the agent's grant), the
// many different calls of a gate in use, each its own decision.
//
//	go run ./bench/internal/reloadp99 -gate 127.0.0.1:18080 -token $TOKEN \
//	    -body '{"question":"agent memory"}' -policy bench/out/policy [-vary 500]
//
// It prints one line: RELOAD before_p99_us=… after_p99_us=… before=N after=N
// swap_ms=… errors=N. Every step is bounded in time.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

type options struct {
	gate, token, body, policy string
	conns, vary               int
}

// variedPath is the root the -vary scopes are sub-paths of: the benchmark
// agent's grant (kunora-coding-agent).
const variedPath = "publish/system/components/kunora-kgent"

// call is one request: when it started, how long it took, whether it
// failed (transport error or a status outside 2xx).
type call struct {
	start   time.Time
	latency time.Duration
	failed  bool
}

func main() {
	var o options
	flag.StringVar(&o.gate, "gate", "127.0.0.1:18080", "the gate's host:port")
	flag.StringVar(&o.token, "token", "", "bearer token of the calling agent")
	flag.StringVar(&o.body, "body", `{"question":"agent memory"}`, "the search request body")
	flag.StringVar(&o.policy, "policy", "", "the policy directory the gate watches")
	flag.IntVar(&o.conns, "conns", 32, "concurrent connections")
	flag.IntVar(&o.vary, "vary", 0, "spread the calls over this many distinct scopes (0: B's one call)")
	flag.Parse()
	if o.token == "" || o.policy == "" {
		fmt.Fprintln(os.Stderr, "usage: reloadp99 -token TOKEN -policy DIR [-gate host:port] [-body JSON] [-conns N]")
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "reloadp99:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: o.conns}}
	before, err := revision(client, o.gate)
	if err != nil {
		return err
	}
	ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	calls := make(chan call, 1<<16)
	var wg sync.WaitGroup
	bodies, err := requestBodies(o)
	if err != nil {
		return err
	}
	for w := range o.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			drive(ctx, client, o.gate, o.token, bodies, w, calls)
		}()
	}
	time.Sleep(time.Second)
	rewrite := time.Now()
	err = touchPolicy(o.policy)
	var swapped time.Time
	if err == nil {
		swapped, err = waitRevisionChange(client, o.gate, before, 20*time.Second)
	}
	if err == nil {
		time.Sleep(time.Until(swapped.Add(1100 * time.Millisecond)))
	}
	stop()
	wg.Wait()
	close(calls)
	if err != nil {
		return err
	}
	return report(calls, rewrite, swapped)
}

// requestBodies is the body as given, or with -vary N that many copies
// each scoped to its own sub-path of the agent's grant.
func requestBodies(o options) ([][]byte, error) {
	if o.vary <= 0 {
		return [][]byte{[]byte(o.body)}, nil
	}
	var base map[string]any
	if err := json.Unmarshal([]byte(o.body), &base); err != nil {
		return nil, fmt.Errorf("-body: %w", err)
	}
	bodies := make([][]byte, o.vary)
	for i := range bodies {
		base["scope"] = map[string]any{"paths": []string{fmt.Sprintf("%s/section-%04d", variedPath, i)}}
		b, err := json.Marshal(base)
		if err != nil {
			return nil, err
		}
		bodies[i] = b
	}
	return bodies, nil
}

// drive sends the calls of bodies in turn (worker w starting at its own
// offset) until ctx is done.
func drive(ctx context.Context, client *http.Client, gate, token string, bodies [][]byte, w int, out chan<- call) {
	url := "http://" + gate + "/agent/tools/search"
	for i := w; ctx.Err() == nil; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(bodies[i%len(bodies)]))
		if err != nil {
			return
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		c := call{start: time.Now()}
		resp, err := client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			c.failed = resp.StatusCode/100 != 2
		} else {
			c.failed = ctx.Err() == nil
		}
		c.latency = time.Since(c.start)
		if ctx.Err() == nil {
			out <- c
		}
	}
}

// touchPolicy rewrites data.json with the same content in other bytes
// (indented differently), which the gate reads as a new revision.
func touchPolicy(dir string) error {
	path := filepath.Join(dir, "data.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var data any
	if err := json.Unmarshal(raw, &data); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	indent := "  "
	if bytes.Contains(raw, []byte("\n  \"")) {
		indent = "\t"
	}
	out, err := json.MarshalIndent(data, "", indent)
	if err != nil {
		return err
	}
	tmp := path + ".reloadp99"
	if err := os.WriteFile(tmp, append(out, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func revision(client *http.Client, gate string) (string, error) {
	resp, err := client.Get("http://" + gate + "/healthz")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var h struct {
		Policy struct {
			Revision string `json:"revision"`
		} `json:"policy"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || h.Policy.Revision == "" {
		return "", errors.New("/healthz names no policy revision")
	}
	return h.Policy.Revision, nil
}

// waitRevisionChange polls /healthz until its revision is not old; it
// returns when it first saw the new one.
func waitRevisionChange(client *http.Client, gate, old string, limit time.Duration) (time.Time, error) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		rev, err := revision(client, gate)
		if err == nil && rev != old {
			return time.Now(), nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Time{}, fmt.Errorf("the gate still serves revision %s %s after the rewrite", old, limit)
}

func report(calls <-chan call, rewrite, swapped time.Time) error {
	var before, after []time.Duration
	failed := 0
	for c := range calls {
		if c.failed {
			failed++
		}
		switch {
		case c.start.Before(rewrite) && c.start.After(rewrite.Add(-time.Second)):
			before = append(before, c.latency)
		case !c.start.Before(swapped) && c.start.Before(swapped.Add(time.Second)):
			after = append(after, c.latency)
		}
	}
	if len(before) == 0 || len(after) == 0 {
		return fmt.Errorf("no calls to compare (%d before, %d after the reload)", len(before), len(after))
	}
	fmt.Printf("RELOAD before_p99_us=%d after_p99_us=%d before=%d after=%d swap_ms=%d errors=%d\n",
		p99(before).Microseconds(), p99(after).Microseconds(), len(before), len(after),
		swapped.Sub(rewrite).Milliseconds(), failed)
	return nil
}

func p99(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[(len(ds)*99)/100]
}
