package backend

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfter reads a backend's Retry-After given in seconds (Meilisearch
// sends one with its 429 and 503); a date, a negative or a missing value is
// 0. The gate's Meilisearch client reports it with the error, and the
// loaders (ingest) wait at least that long before trying again.
func RetryAfter(h http.Header) time.Duration {
	secs, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || secs <= 0 {
		return 0
	}
	return time.Duration(secs) * time.Second
}
