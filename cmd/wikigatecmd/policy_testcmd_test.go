package wikigatecmd

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// testPolicy writes a small policy folder with one passing test (policy,
// data and tests only: the schemas live outside a policy folder).
func testPolicy(t *testing.T, tests string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("policy.rego", `package wikigate

default decision := {"allow": false, "code": "unauthorized", "reason": "no"}

decision := {"allow": true} if input.tool == "search"
`)
	write("policy_test.rego", tests)
	return dir
}

const passingTest = `package wikigate_test

test_search_allowed if data.wikigate.decision.allow with input as {"tool": "search"}
`

func TestPolicyTestPassesAFolderWhoseTestsPass(t *testing.T) {
	var out bytes.Buffer
	err := (&testFlags{dir: testPolicy(t, passingTest), stdout: &out}).run(t.Context())
	if err != nil {
		t.Fatalf("policy test: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "data.wikigate_test.test_search_allowed: PASS") || !strings.Contains(out.String(), "PASS: 1/1") {
		t.Errorf("output does not list the passing test:\n%s", out.String())
	}
}

func TestPolicyTestFailsNamingTheBrokenTest(t *testing.T) {
	var out bytes.Buffer
	broken := passingTest + `
test_ask_allowed if data.wikigate.decision.allow with input as {"tool": "ask"}
`
	err := (&testFlags{dir: testPolicy(t, broken), stdout: &out}).run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "wikigate_test.test_ask_allowed") {
		t.Fatalf("policy test returned %v, want an error naming test_ask_allowed", err)
	}
	if !strings.Contains(out.String(), "data.wikigate_test.test_ask_allowed: FAIL") {
		t.Errorf("output does not mark the failing test:\n%s", out.String())
	}
}

func TestPolicyTestReportsTheShippedPolicysCoverage(t *testing.T) {
	var out bytes.Buffer
	err := (&testFlags{dir: "../../rego", coverage: true, stdout: &out}).run(t.Context())
	if err != nil {
		t.Fatalf("policy test --coverage: %v\n%s", err, out.String())
	}
	total := regexp.MustCompile(`total: (\d+\.\d\d)% of policy lines`).FindStringSubmatch(out.String())
	if total == nil || !strings.Contains(out.String(), "../../rego/decision.rego") {
		t.Fatalf("no per-file coverage and total in:\n%s", out.String())
	}
	if err := (&testFlags{dir: "../../rego", minCoverage: 99.99, stdout: &bytes.Buffer{}}).run(t.Context()); total[1] != "100.00" &&
		(err == nil || !strings.Contains(err.Error(), "below --min-coverage")) {
		t.Errorf("coverage %s%% passed --min-coverage 99.99: %v", total[1], err)
	}
}
