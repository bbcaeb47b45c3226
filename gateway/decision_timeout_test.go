package gateway

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/policies"
)

// waitingPolicy evaluates until its context ends, as an evaluation that
// runs past DecisionTimeout does; toolOK lets the tool gate answer at once
// (a cached tool decision) so the call decision is the one that waits.
type waitingPolicy struct{ toolOK bool }

func (waitingPolicy) Decide(ctx context.Context, _ policies.Input) (policies.Decision, error) {
	<-ctx.Done()
	return policies.Decision{}, ctx.Err()
}

func (p waitingPolicy) DecideTool(ctx context.Context, in policies.Input) (policies.Decision, error) {
	if p.toolOK {
		if err := ctx.Err(); err != nil {
			return policies.Decision{}, err
		}
		return policies.Decision{Allow: true}, nil
	}
	return p.Decide(ctx, in)
}

func (waitingPolicy) Revision() string { return "waiting" }

type agentAuth struct{ noCredentialChecks }

func (agentAuth) AuthenticateAgent(*http.Request) (identity.Principal, error) {
	return identity.Principal{Type: identity.TypeAgent, ID: "kunora-coding-agent", Credential: identity.CredentialJWT}, nil
}

func (agentAuth) AuthenticateAnswer(*http.Request) (identity.Principal, error) {
	return identity.Principal{}, errors.New("not used")
}

// countingSearch fails the test's expectations if it is ever called.
type countingSearch struct{ calls int }

func (s *countingSearch) Search(context.Context, meili.SearchParams) (*meili.SearchResponse, error) {
	s.calls++
	return &meili.SearchResponse{}, nil
}

func (s *countingSearch) Health(context.Context) error { return nil }

// An evaluation that runs past DecisionTimeout, in the tool gate or in the
// call's decision, is cut off there and denies with policy_unavailable:
// the decision contexts arm their timer only when waited on, and must
// still end on time.
func TestDecisionTimeoutDeniesASlowEvaluation(t *testing.T) {
	for _, toolOK := range []bool{false, true} {
		search := &countingSearch{}
		g, err := New(Config{DecisionTimeout: 30 * time.Millisecond}, Deps{Auth: agentAuth{}, Policy: waitingPolicy{toolOK: toolOK}, Search: search})
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		start := time.Now()
		g.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/agent/tools/search", strings.NewReader(`{"question":"agent memory"}`)))
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("tool gate ok=%v: the call took %v", toolOK, took)
		}
		if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), `"policy_unavailable"`) {
			t.Fatalf("tool gate ok=%v: got %d %s", toolOK, w.Code, w.Body)
		}
		if search.calls != 0 {
			t.Fatalf("tool gate ok=%v: a call the policy could not decide reached Meilisearch", toolOK)
		}
	}
}
