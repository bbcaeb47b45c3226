package quota

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Policy names one budget the way the IETF draft's RateLimit-Policy field
// does (draft-ietf-httpapi-ratelimit-headers): every 429 the gate sends
// names the budget it spent, whatever kind of limit refused the call, so a
// client (or a docs page reading the headers through CORS) can back off
// the same way for all of them.
type Policy struct {
	// Name is the policy's identifier, the same in both fields.
	Name string
	// Quota is the budget's size (the draft's q).
	Quota int
	// Window is the time the quota covers (w, whole seconds); zero leaves
	// w out (a budget of places held, not of calls per time).
	Window time.Duration
	// Concurrent marks a budget of things held open at once (the draft's
	// quota unit qu="concurrent-requests") rather than calls counted.
	Concurrent bool
}

// Refusal is what a 429 spending p tells its caller: Retry-After (the wait
// before a call can pass), RateLimit-Policy (p), and RateLimit (what is
// left of p, and when it is whole again). Waits are rounded up to whole
// seconds, at least one: a zero would invite an immediate retry.
func (p Policy) Refusal(remaining int, reset, retryAfter time.Duration) http.Header {
	h := http.Header{}
	h.Set("Retry-After", strconv.Itoa(ceilSeconds(retryAfter)))
	h.Set("RateLimit-Policy", p.field())
	h.Set("RateLimit", strconv.Quote(p.Name)+";r="+strconv.Itoa(max(0, remaining))+";t="+strconv.Itoa(ceilSeconds(reset)))
	return h
}

// field is p as one RateLimit-Policy item: "name";q=N[;w=S][;qu="…"].
func (p Policy) field() string {
	var b strings.Builder
	b.WriteString(strconv.Quote(p.Name))
	b.WriteString(";q=")
	b.WriteString(strconv.Itoa(p.Quota))
	if p.Window > 0 {
		b.WriteString(";w=")
		b.WriteString(strconv.Itoa(ceilSeconds(p.Window)))
	}
	if p.Concurrent {
		b.WriteString(`;qu="concurrent-requests"`)
	}
	return b.String()
}

func ceilSeconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}
