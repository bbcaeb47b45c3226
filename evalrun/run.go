package evalrun

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// Report is a run's output: every case and the totals.
type Report struct {
	Summary Summary      `json:"summary"`
	Cases   []CaseResult `json:"cases"`
}

// Run asks every case of the set, at most concurrency at a time, and scores
// them. progress, when not nil, gets a line rewritten after each case.
func Run(ctx context.Context, g *Gate, s *Set, concurrency int, progress io.Writer) Report {
	concurrency = max(1, concurrency)
	results := make([]CaseResult, len(s.Cases))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(concurrency, len(s.Cases)) {
		wg.Go(func() {
			for i := range next {
				results[i] = Score(s, s.Cases[i], g.Ask(ctx, s, s.Cases[i]))
				mu.Lock()
				done++
				if progress != nil {
					fmt.Fprintf(progress, "\r%s %d/%d", bar(done, len(s.Cases), 30), done, len(s.Cases))
				}
				mu.Unlock()
			}
		})
	}
	for i := range s.Cases {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if progress != nil {
		fmt.Fprintln(progress)
	}
	for i := range results {
		if results[i].ID == "" { // not asked: the run was cancelled
			results[i] = CaseResult{ID: s.Cases[i].ID, Kind: s.Cases[i].Kind, Caller: s.Cases[i].Caller, Leaks: []string{}, Error: "not asked: " + context.Cause(ctx).Error()}
		}
	}
	return Report{Summary: Summarize(results), Cases: results}
}

func bar(done, total, width int) string {
	n := done * width / max(total, 1)
	b := make([]byte, width)
	for i := range b {
		b[i] = '.'
		if i < n {
			b[i] = '#'
		}
	}
	return "[" + string(b) + "]"
}
