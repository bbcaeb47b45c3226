package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// slowOutcome is how the gate treated one slow-body connection.
type slowOutcome struct {
	kind  string // the status ("401"), "closed" (no reply) or "held" (open at the deadline)
	after time.Duration
}

// slowBodies opens n unauthenticated connections that announce a 4 KiB
// body and send a byte every half second. The gate should answer 401 at
// once (it authenticates before reading a body) or drop the connection
// when its read timeout runs out; it must never hold them all. /healthz is
// checked while they are open.
func slowBodies(ctx context.Context, t *target, n int) []result {
	outcomes := make(chan slowOutcome, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outcomes <- slowBody(ctx, t)
		}()
	}
	time.Sleep(time.Second)
	healthz := t.get(ctx, "/healthz")
	wg.Wait()
	close(outcomes)
	kinds, slowest := tally{}, map[string]time.Duration{}
	for o := range outcomes {
		kinds.add(o.kind)
		slowest[o.kind] = max(slowest[o.kind], o.after)
	}
	quick := kinds.only("401") && slowest["401"] < 5*time.Second
	return []result{{
		pass:     quick && healthz.status == http.StatusOK,
		name:     "slow-bodies",
		observed: fmt.Sprintf("conns=%d outcome=%s slowest=%s healthz-during=%s", n, kinds, fmtDurations(slowest), healthz),
		expected: "401 for every connection within 5s (credential checked before the body) and /healthz 200",
	}}
}

func slowBody(ctx context.Context, t *target) slowOutcome {
	start := time.Now()
	c, err := t.dial(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "slow-bodies: dial:", err)
		return slowOutcome{kind: "dial-error"}
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /agent/tools/search HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{", t.addr)
	replied := make(chan string, 1)
	go func() { replied <- readStatus(c) }()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case kind := <-replied:
			return slowOutcome{kind: kind, after: time.Since(start)}
		case <-tick.C:
			_, _ = c.Write([]byte(" ")) // a write error shows up as the read's EOF
		case <-ctx.Done():
			return slowOutcome{kind: "held", after: time.Since(start)}
		}
	}
}

// readStatus waits for the response on c: its status code, "closed" when
// the gate hangs up first, "held" when the script's deadline passes.
func readStatus(c net.Conn) string {
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	var ne net.Error
	switch {
	case err == nil:
		resp.Body.Close()
		return fmt.Sprint(resp.StatusCode)
	case errors.As(err, &ne) && ne.Timeout():
		return "held"
	default:
		return "closed"
	}
}

// fmtDurations writes the slowest time per outcome: "[401:10ms closed:15s]".
func fmtDurations(m map[string]time.Duration) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ":" + m[k].Round(10*time.Millisecond).String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}
