package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A docs page can read a 429's Retry-After, RateLimit and RateLimit-Policy
// (and a feedback replay's Idempotent-Replayed): the refusal from its
// origin carries the CORS headers, and the fields are exposed to the
// page's script.
func TestCORSExposesTheRateLimitFields(t *testing.T) {
	const docs = "https://docs.example.com"
	g := startGate(t, gateOptions{extraOptions: "cors {\n allowed_origins " + docs + "\n}"})
	const block = "feedback {\n\t\t\tpath"
	g.config = strings.Replace(g.config, block, "feedback {\n\t\t\tpeople_limit 1 1h\n\t\t\tpath", 1)
	g.reload()
	var r response
	for i := range 2 {
		r = g.post("/answer/feedback", map[string]string{"Origin": docs}, fmt.Sprintf(`{"eventType":"qa_no_answer","question":"gap %d"}`, i))
	}
	assertLimited(t, "a second report from the docs page", r, `"people-feedback";q=1;w=3600`, 0)
	if r.Header.Get("Access-Control-Allow-Origin") != docs {
		t.Fatalf("the 429 lacks the CORS origin: %v", r.Header)
	}
	var exposed []string
	for _, h := range strings.Split(r.Header.Get("Access-Control-Expose-Headers"), ",") {
		exposed = append(exposed, strings.ToLower(strings.TrimSpace(h)))
	}
	for _, want := range []string{"retry-after", "ratelimit", "ratelimit-policy", "idempotent-replayed"} {
		if !slices.Contains(exposed, want) {
			t.Errorf("%s is not exposed to the page: %q", want, r.Header.Get("Access-Control-Expose-Headers"))
		}
	}
}
