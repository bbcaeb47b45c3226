package ingest

import (
	"context"
	"fmt"
	"time"
)

// withRetries runs once until it succeeds, fails for good (not retryable),
// or has been tried tries+1 times, waiting wait doubled after each failure,
// or the server's Retry-After when longer. Both backends' clients share it:
// 429, 5xx and transport failures are worth another try, a 4xx is final.
func withRetries(ctx context.Context, tries int, wait time.Duration, what string,
	once func() (retryAfter time.Duration, err error), retryable func(error) bool) error {
	var last error
	for attempt := 0; attempt <= tries; attempt++ {
		retryAfter, err := once()
		if err == nil || !retryable(err) {
			return err
		}
		last = err
		if attempt == tries {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(max(wait<<attempt, retryAfter)):
		}
	}
	return fmt.Errorf("%s: giving up after %d attempts: %w", what, tries+1, last)
}

// retrySettings fills in both clients' defaults: 4 retries, the first
// after 200ms.
func retrySettings(tries int, wait time.Duration) (int, time.Duration) {
	if tries <= 0 {
		tries = 4
	}
	if wait <= 0 {
		wait = 200 * time.Millisecond
	}
	return tries, wait
}
