package gateway

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// healthReport is the body of GET /healthz.
type healthReport struct {
	Status   string                   `json:"status"` // ok | degraded
	Policy   policyHealth             `json:"policy"`
	Backends map[string]backendHealth `json:"backends"`
	APIKeys  *apiKeysHealth           `json:"apiKeys,omitempty"`
}

// apiKeysHealth says whether the API key file is usable; the parse error
// itself goes to the log, not to this unauthenticated page.
type apiKeysHealth struct {
	Usable bool `json:"usable"`
}

type policyHealth struct {
	Revision string `json:"revision"`
	// ReloadFailures counts edits that did not compile; LastReloadFailed
	// says the files on disk are broken now and an older policy serves.
	ReloadFailures   uint64 `json:"reloadFailures"`
	LastReloadFailed bool   `json:"lastReloadFailed"`
}

// reloadReporter is what the policy engine tells about its reloads.
type reloadReporter interface {
	ReloadFailures() uint64
	LastReloadError() error
}

func (g *Gateway) policyHealth() policyHealth {
	h := policyHealth{Revision: g.deps.Policy.Revision()}
	if rr, ok := g.deps.Policy.(reloadReporter); ok {
		h.ReloadFailures, h.LastReloadFailed = rr.ReloadFailures(), rr.LastReloadError() != nil
	}
	return h
}

type backendHealth struct {
	Reachable bool    `json:"reachable"`
	LatencyMs float64 `json:"latencyMs"`
	Error     string  `json:"error,omitempty"`
}

// serveHealth reports the gate, its policy revision and each backend's
// reachability. The gate itself is up whenever it answers, so the status
// code is 200 with "degraded" when a backend is down, and 503 only when it
// is asked with ?strict=1 (for load balancers that should drain it).
func (g *Gateway) serveHealth(w http.ResponseWriter, r *http.Request) {
	rep := healthReport{Status: "ok", Policy: g.policyHealth(), Backends: g.backendHealth(r.Context())}
	if rep.Policy.LastReloadFailed {
		rep.Status = "degraded"
	}
	if ks := g.deps.KeyStore; ks != nil {
		rep.APIKeys = &apiKeysHealth{Usable: ks.LastError() == nil}
		if !rep.APIKeys.Usable {
			rep.Status = "degraded"
		}
	}
	for _, b := range rep.Backends {
		if !b.Reachable {
			rep.Status = "degraded"
		}
	}
	status := http.StatusOK
	if rep.Status != "ok" && r.URL.Query().Get("strict") == "1" {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, rep)
}

func (g *Gateway) probe(ctx context.Context, check func(context.Context) error) backendHealth {
	start := g.now()
	err := check(ctx)
	h := backendHealth{Reachable: err == nil, LatencyMs: float64(g.now().Sub(start).Microseconds()) / 1000}
	if err != nil {
		h.Error = "unreachable"
	}
	return h
}

// healthProbeTTL is how long backend probe results are reused: /healthz is
// unauthenticated, and probing both backends on every hit would let anyone
// multiply load on them.
const healthProbeTTL = 2 * time.Second

// healthCache holds the last probe results; probes run one at a time.
type healthCache struct {
	mu       sync.Mutex
	at       time.Time
	backends map[string]backendHealth
}

// backendHealth probes each backend, or reuses results younger than
// healthProbeTTL.
func (g *Gateway) backendHealth(ctx context.Context) map[string]backendHealth {
	g.health.mu.Lock()
	defer g.health.mu.Unlock()
	if g.health.backends != nil && g.now().Sub(g.health.at) < healthProbeTTL {
		return g.health.backends
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	out := map[string]backendHealth{"meilisearch": g.probe(ctx, g.deps.Search.Health)}
	if g.deps.Answers != nil {
		out["ragflow"] = g.probe(ctx, g.deps.Answers.Health)
	}
	g.health.at, g.health.backends = g.now(), out
	return out
}
