package integration

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/wikigate/wikigate/internal/testservers"
)

// servedBy is the response header each gate process of the scale-out test
// adds, so the test can tell which gate behind the balancer answered.
const servedBy = "X-Served-By"

// cluster is three gate processes sharing one Redis and one PostgreSQL,
// behind one Caddy reverse_proxy load balancer (round robin), in front of
// the development backends (RAGFlow through a tap that keeps the prompts).
type cluster struct {
	lb    *gate   // the balancer, as a client sees it
	gates []*gate // each gate directly
	procs []*gateProc
	tap   *ragflowTap
	pg    *testservers.Postgres
}

// startCluster starts the balancer and the development backends in this
// test process, then the three gate processes.
func startCluster(t *testing.T, rds *testservers.Redis, pg *testservers.Postgres) *cluster {
	t.Helper()
	bin := gateBinary(t)
	policy := scaleoutPolicy(t)
	tap, tapURL := newRAGFlowTap(t)
	lbPort, meiliPort, ragPort := freePort(t), freePort(t), freePort(t)
	ports := []int{freePort(t), freePort(t), freePort(t)}
	upstreams := make([]string, len(ports))
	for i, p := range ports {
		upstreams[i] = fmt.Sprintf("127.0.0.1:%d", p)
	}
	loadCaddyfile(t, fmt.Sprintf(balancerTemplate, lbPort, strings.Join(upstreams, " "), meiliPort, meiliKey, ragPort, ragflowKey))
	u, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", ragPort))
	tap.upstream.Store(u)

	c := &cluster{tap: tap, pg: pg, lb: clientOf(t, fmt.Sprintf("http://127.0.0.1:%d", lbPort))}
	keys := filepath.Join(t.TempDir(), "api_keys.json")
	for i, port := range ports {
		name := fmt.Sprintf("gate-%d", i+1)
		cfg := fmt.Sprintf(scaleoutGateTemplate, port, name, policy, keys, jwtSecret, jwtSecret,
			fmt.Sprintf("http://127.0.0.1:%d", meiliPort), meiliKey, tapURL, ragflowKey, rds.URL(), pg.DSN())
		p := startGateProc(t, bin, name, port, cfg)
		c.procs = append(c.procs, p)
		c.gates = append(c.gates, clientOf(t, p.url))
	}
	c.waitBalancedOverAll(t)
	return c
}

// waitBalancedOverAll waits until the balancer sends calls to every gate:
// round robin skips a gate that was still starting (refused connection)
// or that a health probe marked down before it came up, and the tests
// that follow count which gate served each call.
func (c *cluster) waitBalancedOverAll(t *testing.T) {
	t.Helper()
	seen := map[string]bool{}
	for deadline := time.Now().Add(30 * time.Second); len(seen) < len(c.procs); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 30s the balancer has sent /healthz only to %v of %d gates", seen, len(c.procs))
		}
		resp, err := http.Get(c.lb.url + "/healthz")
		if err != nil {
			continue
		}
		resp.Body.Close()
		if by := resp.Header.Get(servedBy); by != "" && resp.StatusCode == http.StatusOK {
			seen[by] = true
		}
	}
}

func clientOf(t *testing.T, base string) *gate {
	return &gate{t: t, url: base, client: &http.Client{Timeout: 15 * time.Second}}
}

// balancerTemplate is the load balancer of docs/operators.md "Several gates"
// (round robin; a gate that refuses connections is skipped within
// lb_try_duration and left out for fail_duration; /healthz probes), on
// loopback, plus the development backends the gates share.
const balancerTemplate = `{
	admin off
	auto_https off
	grace_period 1ns
	log {
		output discard
	}
}
http://:%d {
	bind 127.0.0.1
	reverse_proxy %s {
		lb_policy round_robin
		lb_try_duration 2s
		fail_duration 30s
		health_uri /healthz
		health_interval 2s
	}
}
` + devBackendSites

// scaleoutGateTemplate is one gate of docs/operators.md "Several gates":
// sessions in Redis (which also holds the shared rate limits), feedback in
// PostgreSQL, the balancer trusted for X-Forwarded-For; plus a header that
// names the gate.
const scaleoutGateTemplate = `{
	admin off
	persist_config off
	auto_https off
	grace_period 1ns
	servers {
		trusted_proxies static 127.0.0.1/32
	}
}
http://:%d {
	bind 127.0.0.1
	header ` + servedBy + ` %s
	handle_errors {
		wikigate_error
	}
	wikigate {
		policy_dir %s
		api_keys_file %s
		agent_jwt {
			issuer wikigate-dev
			audience wikigate
			algorithms HS256
			hmac_secret %s
		}
		human_jwt {
			issuer wikigate-dev-sso
			audience wikigate
			algorithms HS256
			hmac_secret %s
		}
		meilisearch {
			url %s
			api_key %s
			timeout 2s
		}
		ragflow {
			url %s
			api_key %s
		}
		sessions {
			store redis
		}
		redis {
			url %s
			key_prefix scaleout:
		}
		feedback {
			store postgres
		}
		postgres {
			dsn %s
			max_conns 8
		}
	}
}
`

// scaleoutPolicy is the team's policy with an agent's search limited to
// 10 a minute, its feedback not limited in practice (the test sends
// hundreds of reports from one agent within the minute), and
// docs-maintainer-agent's tokens to 100 an hour (tokenBudgetAcrossGates).
func scaleoutPolicy(t *testing.T) string {
	t.Helper()
	return policyWithData(t, func(data map[string]any) {
		data["limits"].(map[string]any)["tokens"].(map[string]any)["agent_overrides"] = map[string]any{
			"docs-maintainer-agent": map[string]any{"hour": 100}}
		agents := limitGroup(t, data, "per_minute", "agents")
		agents["search"] = 10
		agents["create_feedback"] = 1_000_000
		limitGroup(t, data, "per_hour", "feedback")["agents"] = 1_000_000
	})
}

// The balancer Caddyfile docs/operators.md "Several gates" shows adapts, and
// its reverse_proxy options are the ones the scale-out test runs with.
func TestReadmeBalancerIsTheTestedOne(t *testing.T) {
	raw, err := os.ReadFile("../docs/operators.md")
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(raw), "\n## Several gates\n")
	if start < 0 {
		t.Fatal("docs/operators.md has no section Several gates")
	}
	section, _, _ := strings.Cut(string(raw[start+1:]), "\n## ")
	_, block, ok := strings.Cut(section, "```caddyfile\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok || !strings.Contains(block, "reverse_proxy") {
		t.Fatal("docs/operators.md's Several gates has no balancer Caddyfile first")
	}
	if _, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(block), map[string]any{"filename": "Caddyfile"}); err != nil {
		t.Fatalf("docs/operators.md's balancer Caddyfile does not adapt: %v", err)
	}
	_, opts, _ := strings.Cut(block, "reverse_proxy")
	_, opts, _ = strings.Cut(opts, "{\n")
	opts, _, _ = strings.Cut(opts, "}")
	for _, line := range strings.Split(strings.TrimSpace(opts), "\n") {
		if !strings.Contains(balancerTemplate, "\t\t"+strings.TrimSpace(line)+"\n") {
			t.Errorf("docs/operators.md's balancer has %q, the tested one does not", strings.TrimSpace(line))
		}
	}
}
