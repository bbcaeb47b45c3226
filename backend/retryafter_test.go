package backend

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfterSeconds(t *testing.T) {
	for v, want := range map[string]time.Duration{
		"10": 10 * time.Second, " 3 ": 3 * time.Second, "": 0, "0": 0, "-5": 0,
		"Wed, 21 Oct 2015 07:28:00 GMT": 0, "1.5": 0,
	} {
		h := http.Header{}
		if v != "" {
			h.Set("Retry-After", v)
		}
		if got := RetryAfter(h); got != want {
			t.Errorf("Retry-After %q = %v, want %v", v, got, want)
		}
	}
}
