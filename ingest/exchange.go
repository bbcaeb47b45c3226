package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/wikigate/wikigate/backend"
)

// maxAnswer bounds what either client reads of one answer: a longer one
// fails the call (it is not retried) instead of being decoded cut short.
var maxAnswer int64 = 64 << 20

// answer is one HTTP reply as both backends' clients read it.
type answer struct {
	status int
	header http.Header
	body   []byte
	// retryAfter is the server's Retry-After in seconds (0 when absent):
	// withRetries waits at least that long before the next try.
	retryAfter time.Duration
}

// transportError marks a failure before a complete answer: worth retrying.
type transportError struct{ err error }

func (e transportError) Error() string { return e.err.Error() }
func (e transportError) Unwrap() error { return e.err }

// exchange sends req with hc (a client with the given timeout when hc is
// nil) and reads the whole answer. A failure to send or read is a
// transportError, unless the caller's ctx has ended: then it is ctx's error,
// which no retry can cure.
func exchange(ctx context.Context, hc *http.Client, timeout time.Duration, req *http.Request) (answer, error) {
	if hc == nil {
		hc = &http.Client{Timeout: timeout}
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return answer{}, ctx.Err()
		}
		return answer{}, transportError{err}
	}
	defer resp.Body.Close()
	var raw bytes.Buffer
	if err := backend.ReadLimited(&raw, resp.Body, maxAnswer); err != nil {
		if errors.Is(err, backend.ErrTooLarge) {
			return answer{}, fmt.Errorf("HTTP %d answer over %d bytes: %w", resp.StatusCode, maxAnswer, err)
		}
		return answer{}, transportError{err}
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: raw.Bytes(), retryAfter: backend.RetryAfter(resp.Header)}, nil
}

// retryableStatus is what both backends may answer better later: 429 and
// 5xx (a 4xx is final).
func retryableStatus(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// isTransport says whether err is a transportError.
func isTransport(err error) bool {
	var te transportError
	return errors.As(err, &te)
}
