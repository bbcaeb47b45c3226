package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// metricName matches a gate metric in a PromQL expression; a histogram's
// _bucket, _count and _sum series belong to its family.
var metricName = regexp.MustCompile(`caddy_wikigate_[a-z_]+`)

// deployMetrics are the metric families deploy/alerts.yml and
// deploy/grafana-dashboard.json use.
func deployMetrics(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, f := range []string{"../deploy/alerts.yml", "../deploy/grafana-dashboard.json"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		found := metricName.FindAllString(string(raw), -1)
		if len(found) == 0 {
			t.Fatalf("%s uses no caddy_wikigate_ metric", f)
		}
		for _, n := range found {
			for _, suffix := range []string{"_bucket", "_count", "_sum"} {
				n = strings.TrimSuffix(n, suffix)
			}
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Every metric the shipped alert rules and dashboard use is one a running
// gate exports at /metrics (after the calls that make each one: an ask,
// with the audit file and per-caller token metrics configured), so a
// renamed metric cannot leave an alert silently watching nothing.
func TestDeployAlertsAndDashboardUseExportedMetrics(t *testing.T) {
	auditFile := filepath.Join(t.TempDir(), "audit.log")
	policy := policyWithData(t, func(map[string]any) {})
	g := startGate(t, gateOptions{
		policyDir:    policy,
		siteExtra:    "metrics /metrics",
		extraOptions: "token_metrics_per_caller",
		globalExtra:  "log audit {\n\t\toutput wikigate_audit_file " + auditFile + "\n\t\tinclude http.handlers.wikigate.audit\n\t}",
	})
	if r := g.post("/agent/tools/ask", bearer(agentToken(t, "kunora-coding-agent")), tokenQuestion); r.Status != 200 {
		t.Fatalf("ask: %d %s", r.Status, r.Body)
	}
	// A policy edit is reloaded (caddy_wikigate_policy_reloads_total).
	editJSON(t, filepath.Join(policy, "data.json"), func(v any) any {
		v.(map[string]any)["limits"].(map[string]any)["per_minute"].(map[string]any)["agents"].(map[string]any)["search"] = 1199
		return v
	})
	// A reload builds and checks the policy (Wasm too): seconds under the
	// race detector, so the wait is longer than waitFor's.
	var body string
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		body = string(g.do(newGet(t, g.url+"/metrics")).Body)
		if strings.Contains(body, "\n# TYPE caddy_wikigate_policy_reloads_total ") || time.Now().After(deadline) {
			break
		}
	}
	for _, name := range deployMetrics(t) {
		if !strings.Contains(body, "\n# TYPE "+name+" ") {
			t.Errorf("deploy/ uses %s, which the gate does not export at /metrics", name)
		}
	}
}

// promtool (Debian's prometheus package) accepts deploy/alerts.yml.
func TestDeployAlertsPassPromtool(t *testing.T) {
	t.Parallel()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("WIKIGATE_REQUIRE_SERVERS") != "" {
			t.Fatal("promtool not found (Debian package prometheus) and WIKIGATE_REQUIRE_SERVERS is set")
		}
		t.Skip("promtool not found: install Debian's prometheus package")
	}
	out, err := exec.Command(promtool, "check", "rules", "../deploy/alerts.yml").CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check rules deploy/alerts.yml: %v\n%s", err, out)
	}
}
