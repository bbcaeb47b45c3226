package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

const floodWorkers = 32

// sessionFlood creates n anonymous sessions from one address, then checks
// that they were limited (some refused with 429: a budget per address, or
// the store's anonymous budget) and that an agent's session created before
// the flood still answers: anonymous visitors must never evict a signed-in
// owner's live session.
func sessionFlood(ctx context.Context, t *target, n int) []result {
	res := result{name: "anonymous-session-flood", expected: "victim turn 200 after the flood; anonymous creates 200 or 429 only, some 429"}
	victim := bearer(t.tokens.coding)
	id, tok, err := createSession(ctx, t, victim)
	if err != nil {
		res.observed = err.Error()
		return []result{res}
	}
	victim.Set("X-Session-Token", tok)
	turn := func() reply {
		return t.post(ctx, "/answer/sessions/"+id+"/turns", victim, []byte(`{"question":"How do I use Redis as the memory store?"}`))
	}
	before := turn()
	creates := floodAnonymous(ctx, t, n)
	after := turn()
	res.observed = fmt.Sprintf("victim-before=%s anonymous-creates=%s victim-after=%s", before, creates, after)
	onlyOKOr429, limited := true, false
	for k := range creates {
		onlyOKOr429 = onlyOKOr429 && (k == "200" || strings.HasPrefix(k, "429"))
		limited = limited || strings.HasPrefix(k, "429")
	}
	res.pass = before.status == http.StatusOK && after.status == http.StatusOK && onlyOKOr429 && limited
	return []result{res}
}

// floodAnonymous creates n anonymous sessions with a few workers and tallies
// the replies.
func floodAnonymous(ctx context.Context, t *target, n int) tally {
	jobs := make(chan struct{}, n)
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	var mu sync.Mutex
	seen := tally{}
	var wg sync.WaitGroup
	for range floodWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				if ctx.Err() != nil {
					return
				}
				r := t.post(ctx, "/answer/sessions", nil, []byte(`{}`))
				mu.Lock()
				seen.add(r.String())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return seen
}
