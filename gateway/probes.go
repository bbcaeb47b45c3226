package gateway

import (
	"context"
	"sync"
	"time"
)

// healthProbeTTL is how long probe results are reused: /healthz is
// unauthenticated, and probing every dependency on every hit would let
// anyone multiply load on them.
const healthProbeTTL = 2 * time.Second

// healthProbeTimeout bounds each dependency's probe on its own, so one
// stalled backend cannot make another look down.
const healthProbeTimeout = 2 * time.Second

// dependencies is one round of probe results.
type dependencies struct {
	backends map[string]backendHealth
	jwks     map[string]backendHealth
	stores   map[string]backendHealth
}

func (d dependencies) allReachable() bool {
	for _, group := range []map[string]backendHealth{d.backends, d.jwks, d.stores} {
		for _, h := range group {
			if !h.Reachable {
				return false
			}
		}
	}
	return true
}

// healthCache holds the last probe results and the round in flight.
type healthCache struct {
	mu       sync.Mutex
	at       time.Time
	last     *dependencies
	inflight chan struct{} // closed when the round in flight ends; nil when none runs
}

// jwksReporter is what the authenticator tells about its JWKS sources
// (identity.Authenticator.JWKSChecks).
type jwksReporter interface {
	JWKSChecks() map[string]func(context.Context) error
}

// dependencyHealth returns results younger than healthProbeTTL, or waits
// for a fresh round. The round runs detached from the caller: a client
// that hangs up only stops waiting, and its departure is never recorded
// as a backend failure for everyone else.
func (g *Gateway) dependencyHealth(ctx context.Context) dependencies {
	g.health.mu.Lock()
	if g.health.last != nil && g.now().Sub(g.health.at) < healthProbeTTL {
		defer g.health.mu.Unlock()
		return *g.health.last
	}
	if g.health.inflight == nil {
		g.health.inflight = make(chan struct{})
		go g.probeAll(g.health.inflight)
	}
	done := g.health.inflight
	g.health.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
	}
	g.health.mu.Lock()
	defer g.health.mu.Unlock()
	if g.health.last == nil {
		return dependencies{}
	}
	return *g.health.last
}

// probeAll probes every dependency at once, each under its own deadline,
// stores the round and wakes the waiters.
func (g *Gateway) probeAll(done chan struct{}) {
	backends := map[string]func(context.Context) error{"meilisearch": g.deps.Search.Health}
	if g.deps.Answers != nil {
		backends["ragflow"] = g.deps.Answers.Health
	}
	var jwks map[string]func(context.Context) error
	if jr, ok := g.deps.Auth.(jwksReporter); ok {
		jwks = jr.JWKSChecks()
	}
	var wg sync.WaitGroup
	out := dependencies{backends: g.probeGroup(&wg, backends), jwks: g.probeGroup(&wg, jwks), stores: g.probeGroup(&wg, g.storeChecks())}
	wg.Wait()
	if len(out.jwks) == 0 {
		out.jwks = nil
	}
	if len(out.stores) == 0 {
		out.stores = nil
	}
	g.health.mu.Lock()
	g.health.at, g.health.last, g.health.inflight = g.now(), &out, nil
	g.health.mu.Unlock()
	close(done)
}

// healthChecker is a store that can be probed (a shared one, on Redis).
type healthChecker interface {
	Health(ctx context.Context) error
}

// storeChecks probes the stores that live outside the process.
func (g *Gateway) storeChecks() map[string]func(context.Context) error {
	checks := map[string]func(context.Context) error{}
	if hc, ok := g.deps.Sessions.(healthChecker); ok {
		checks["sessions"] = hc.Health
	}
	if hc, ok := g.deps.Feedback.(healthChecker); ok {
		checks["feedback"] = hc.Health
	}
	return checks
}

// probeGroup starts one probe per check on wg; the returned map is filled
// in once wg is done.
func (g *Gateway) probeGroup(wg *sync.WaitGroup, checks map[string]func(context.Context) error) map[string]backendHealth {
	out := make(map[string]backendHealth, len(checks))
	var mu sync.Mutex
	for name, check := range checks {
		wg.Go(func() {
			h := g.probe(check)
			mu.Lock()
			out[name] = h
			mu.Unlock()
		})
	}
	return out
}

// probe runs one check on a context of its own with its own deadline.
func (g *Gateway) probe(check func(context.Context) error) backendHealth {
	ctx, cancel := context.WithTimeout(context.Background(), healthProbeTimeout)
	defer cancel()
	start := g.now()
	err := check(ctx)
	h := backendHealth{Reachable: err == nil, LatencyMs: float64(g.now().Sub(start).Microseconds()) / 1000}
	if err != nil {
		h.Error = "unreachable"
	}
	return h
}
