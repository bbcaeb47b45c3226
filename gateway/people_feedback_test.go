package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wikigate/wikigate/feedback"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/quota"
)

// Anonymous readers are limited by address (as Caddy names it behind its
// trusted proxies), signed-in callers by identity, each on its own budget.
func TestLimitCallerKeys(t *testing.T) {
	g := &Gateway{}
	g.cfg.Stream.ClientIP = nil
	limit := limitCaller(g, quota.NewKeyed(1, time.Hour))
	anonA := &call{principal: identity.Principal{Type: "human", Anonymous: true}}
	r1 := httptest.NewRequest("POST", "/answer/feedback", nil)
	r1.RemoteAddr = "192.0.2.1:1000"
	r2 := httptest.NewRequest("POST", "/answer/feedback", nil)
	r2.RemoteAddr = "192.0.2.2:1000"
	if err := limit(context.Background(), r1, anonA); err != nil {
		t.Fatal(err)
	}
	err := limit(context.Background(), r1, anonA)
	pe := protocol.AsError(err)
	if pe.Code != protocol.CodeRateLimited || pe.Status != 429 || pe.Header.Get("Retry-After") != "3600" ||
		pe.Header.Get("RateLimit-Policy") != `"people-feedback";q=1;w=3600` || pe.Header.Get("RateLimit") != `"people-feedback";r=0;t=3600` {
		t.Fatalf("second from the same address: %+v", pe)
	}
	if err := limit(context.Background(), r2, anonA); err != nil {
		t.Fatalf("another address shares the budget: %v", err)
	}
	bob := &call{principal: identity.Principal{Type: "human", ID: "bob"}}
	if err := limit(context.Background(), r1, bob); err != nil {
		t.Fatalf("a signed-in caller shares the anonymous budget of its address: %v", err)
	}
	g.cfg.Stream.ClientIP = func(*http.Request) string { return "203.0.113.9" }
	if err := limit(context.Background(), r1, anonA); err != nil {
		t.Fatalf("the client address as Caddy names it is not the key: %v", err)
	}
}

func TestFeedbackEndpointOnlyForPeoplesAnswers(t *testing.T) {
	g := &Gateway{routes: map[string]route{peopleFeedbackEndpoint: {}}}
	if g.feedbackEndpointFor("/answer/ask") != "/answer/feedback" || g.feedbackEndpointFor("/answer/sessions/{sessionId}/turns") != "/answer/feedback" {
		t.Fatal("people's answers do not name /answer/feedback")
	}
	if g.feedbackEndpointFor("/agent/tools/ask") != "" || g.feedbackEndpointFor("/mcp") != "" {
		t.Fatal("agent tools name /answer/feedback")
	}
	if (&Gateway{routes: map[string]route{}}).feedbackEndpointFor("/answer/ask") != "" {
		t.Fatal("a gate without feedback names /answer/feedback")
	}
}

func TestWriteToolsOfferedOnlyWithAFeedbackStore(t *testing.T) {
	granted := []string{"create_feedback", "create_improvement_task"}
	if got := (&Gateway{}).servedWriteTools(granted); got != nil {
		t.Fatalf("a gate without a feedback store offers %v", got)
	}
	var store feedback.Submitter = (*feedback.Store)(nil)
	g := &Gateway{deps: Deps{Feedback: store}}
	if got := g.servedWriteTools(granted); len(got) != 2 {
		t.Fatalf("a gate with a feedback store offers %v", got)
	}
}
