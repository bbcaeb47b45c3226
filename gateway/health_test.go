package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/ragflow"
)

// healthFunc is a dependency whose Health runs check.
type healthFunc func(ctx context.Context) error

func (f healthFunc) Health(ctx context.Context) error { return f(ctx) }

func (healthFunc) Search(context.Context, meili.SearchParams) (*meili.SearchResponse, error) {
	return nil, errors.New("not used")
}

func (healthFunc) Retrieve(context.Context, ragflow.RetrieveParams) (*ragflow.Retrieval, error) {
	return nil, errors.New("not used")
}

func (healthFunc) Complete(context.Context, []ragflow.Message, bool) (*ragflow.Completion, error) {
	return nil, errors.New("not used")
}

// slowOK answers after d unless its context ends first.
func slowOK(d time.Duration) healthFunc {
	return func(ctx context.Context) error {
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// stalled never answers: only its context ends it.
var stalled healthFunc = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }

type fixedRevision struct{}

func (fixedRevision) Decide(context.Context, policies.Input) (policies.Decision, error) {
	return policies.Decision{}, errors.New("not used")
}
func (fixedRevision) DecideTool(context.Context, policies.Input) (policies.Decision, error) {
	return policies.Decision{}, errors.New("not used")
}
func (fixedRevision) Revision() string { return "rev" }

// jwksAuth reports JWKS checks like identity.Authenticator.
type jwksAuth map[string]func(context.Context) error

func (jwksAuth) AuthenticateAgent(*http.Request) (identity.Principal, error) {
	return identity.Principal{}, errors.New("not used")
}
func (jwksAuth) AuthenticateAnswer(*http.Request) (identity.Principal, error) {
	return identity.Principal{}, errors.New("not used")
}
func (jwksAuth) CredentialInfo(*http.Request, identity.Principal) identity.CredentialInfo {
	return identity.CredentialInfo{}
}
func (jwksAuth) CheckAPIKey(string) error                             { return errors.New("not used") }
func (a jwksAuth) JWKSChecks() map[string]func(context.Context) error { return a }

func newHealthGateway(t *testing.T, search, rag healthFunc, auth jwksAuth) *Gateway {
	t.Helper()
	g, err := New(Config{}, Deps{Auth: auth, Policy: fixedRevision{}, Search: search, Answers: rag})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func getHealth(t *testing.T, g *Gateway, ctx context.Context) healthReport {
	t.Helper()
	w := httptest.NewRecorder()
	g.serveHealth(w, httptest.NewRequestWithContext(ctx, http.MethodGet, "/healthz", nil))
	var rep healthReport
	if err := json.Unmarshal(w.Body.Bytes(), &rep); err != nil {
		t.Fatalf("healthz body: %v: %s", err, w.Body)
	}
	return rep
}

func TestHealthCallerHangUpDoesNotPoisonTheProbe(t *testing.T) {
	g := newHealthGateway(t, slowOK(100*time.Millisecond), slowOK(100*time.Millisecond), nil)
	gone, cancel := context.WithCancel(t.Context())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	getHealth(t, g, gone) // the caller resets mid-probe

	rep := getHealth(t, g, t.Context())
	for name, b := range rep.Backends {
		if !b.Reachable {
			t.Errorf("%s reported unreachable after another caller hung up: %+v", name, rep)
		}
	}
	if rep.Status != "ok" || len(rep.Backends) != 2 {
		t.Errorf("status %q, backends %+v; want ok with both", rep.Status, rep.Backends)
	}
}

func TestHealthOneStalledBackendDoesNotMarkTheOtherDown(t *testing.T) {
	g := newHealthGateway(t, stalled, slowOK(0), nil)
	rep := getHealth(t, g, t.Context())
	if rep.Backends["meilisearch"].Reachable {
		t.Errorf("the stalled backend is reported reachable: %+v", rep.Backends)
	}
	if !rep.Backends["ragflow"].Reachable {
		t.Errorf("a healthy backend was marked down by the stalled one: %+v", rep.Backends)
	}
	if rep.Status != "degraded" {
		t.Errorf("status %q, want degraded", rep.Status)
	}
}

func TestHealthReportsJWKS(t *testing.T) {
	down := func(context.Context) error { return errors.New("jwks: http 503") }
	up := func(context.Context) error { return nil }
	g := newHealthGateway(t, slowOK(0), slowOK(0), jwksAuth{"agent": down, "human": up})
	rep := getHealth(t, g, t.Context())
	if rep.JWKS["agent"].Reachable || !rep.JWKS["human"].Reachable || rep.Status != "degraded" {
		t.Errorf("want agent JWKS down, human up, degraded: %+v", rep)
	}
}
