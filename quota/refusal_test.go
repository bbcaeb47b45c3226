package quota

import (
	"testing"
	"time"
)

// The three fields of a 429, as the IETF draft spells them: a windowed
// budget names w, a budget of things held open names its unit instead, and
// waits round up to whole seconds (never 0).
func TestRefusalHeaders(t *testing.T) {
	h := Policy{Name: "search-minute", Quota: 10, Window: time.Minute}.Refusal(0, 1500*time.Millisecond, 200*time.Millisecond)
	if h.Get("Retry-After") != "1" || h.Get("RateLimit-Policy") != `"search-minute";q=10;w=60` || h.Get("RateLimit") != `"search-minute";r=0;t=2` {
		t.Fatalf("windowed budget: %v", h)
	}
	h = Policy{Name: "streams-per-caller", Quota: 4, Concurrent: true}.Refusal(-1, 5*time.Second, 5*time.Second)
	if h.Get("Retry-After") != "5" || h.Get("RateLimit-Policy") != `"streams-per-caller";q=4;qu="concurrent-requests"` || h.Get("RateLimit") != `"streams-per-caller";r=0;t=5` {
		t.Fatalf("concurrent budget: %v", h)
	}
}

// A token bucket of 5 refilled one a minute is 5 per 5 minutes, and a
// caller refused 20s before its next call has all 5 back 4 minutes after
// that.
func TestKeyedPolicy(t *testing.T) {
	at := time.Unix(1000, 0)
	k := NewKeyed(5, time.Minute)
	fixed(k, &at)
	if p := k.Policy("people-feedback"); p != (Policy{Name: "people-feedback", Quota: 5, Window: 5 * time.Minute}) {
		t.Fatalf("policy %+v", p)
	}
	for range 5 {
		k.Allow("a")
	}
	at = at.Add(40 * time.Second)
	if res := k.Allow("a"); res.Allowed || res.RetryAfter != 20*time.Second || res.ResetAfter != 4*time.Minute+20*time.Second {
		t.Fatalf("refused: %+v, want a 20s wait and the whole budget back in 4m20s", res)
	}
}
