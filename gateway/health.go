package gateway

import (
	"net/http"
)

// healthReport is the body of GET /healthz.
type healthReport struct {
	Status   string                   `json:"status"` // ok | degraded
	Policy   policyHealth             `json:"policy"`
	Backends map[string]backendHealth `json:"backends"`
	// JWKS is each verifier's key source ("agent", "human"), when it is a
	// JWKS URL: an outage there shows to callers only as 401s.
	JWKS map[string]backendHealth `json:"jwks,omitempty"`
	// Stores are the shared stores the gate uses ("sessions" on Redis);
	// the embedded ones live in the process and are not listed.
	Stores  map[string]backendHealth `json:"stores,omitempty"`
	APIKeys *apiKeysHealth           `json:"apiKeys,omitempty"`
}

// apiKeysHealth says whether the API key file is usable; the parse error
// itself goes to the log, not to this unauthenticated page.
type apiKeysHealth struct {
	Usable bool `json:"usable"`
}

type policyHealth struct {
	Revision string `json:"revision"`
	// Evaluator is what decides for that revision: "wasm" or "topdown"
	// (under `evaluator auto`, whichever the load chose; the log says why).
	Evaluator string `json:"evaluator,omitempty"`
	// ReloadFailures counts edits that did not compile; LastReloadFailed
	// says the files on disk are broken now and an older policy serves.
	ReloadFailures   uint64 `json:"reloadFailures"`
	LastReloadFailed bool   `json:"lastReloadFailed"`
	// FailingTests names the policy tests that refused the last candidate
	// (tested reloads): what the security team has to fix.
	FailingTests []string `json:"failingTests,omitempty"`
}

// evaluatorReporter is a policy engine that names its evaluator.
type evaluatorReporter interface{ Evaluator() string }

// reloadReporter is what the policy engine tells about its reloads.
type reloadReporter interface {
	ReloadFailures() uint64
	LastReloadError() error
	FailingTests() []string
}

func (g *Gateway) policyHealth() policyHealth {
	h := policyHealth{Revision: g.deps.Policy.Revision()}
	if er, ok := g.deps.Policy.(evaluatorReporter); ok {
		h.Evaluator = er.Evaluator()
	}
	if rr, ok := g.deps.Policy.(reloadReporter); ok {
		h.ReloadFailures, h.LastReloadFailed = rr.ReloadFailures(), rr.LastReloadError() != nil
		h.FailingTests = rr.FailingTests()
	}
	return h
}

type backendHealth struct {
	Reachable bool    `json:"reachable"`
	LatencyMs float64 `json:"latencyMs"`
	Error     string  `json:"error,omitempty"`
}

// serveHealth reports the gate, its policy revision and each dependency's
// reachability. The gate itself is up whenever it answers, so the status
// code is 200 with "degraded" when a dependency is down, and 503 only when
// it is asked with ?strict=1 (for load balancers that should drain it).
func (g *Gateway) serveHealth(w http.ResponseWriter, r *http.Request) {
	deps := g.dependencyHealth(r.Context())
	rep := healthReport{Status: "ok", Policy: g.policyHealth(), Backends: deps.backends, JWKS: deps.jwks, Stores: deps.stores}
	if rep.Policy.LastReloadFailed {
		rep.Status = "degraded"
	}
	if ks := g.deps.KeyStore; ks != nil {
		rep.APIKeys = &apiKeysHealth{Usable: ks.LastError() == nil}
		if !rep.APIKeys.Usable {
			rep.Status = "degraded"
		}
	}
	if !deps.allReachable() {
		rep.Status = "degraded"
	}
	status := http.StatusOK
	if rep.Status != "ok" && r.URL.Query().Get("strict") == "1" {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, rep)
}
