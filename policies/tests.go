package policies

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing/fstest"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/tester"
)

// testTimeout bounds one test rule, so a test that loops cannot hold a
// reload (and the reload lock) forever.
const testTimeout = 30 * time.Second

// TestsFailedError refuses a candidate policy whose own *_test.rego rules do
// not all pass. Tests names them (package.rule, without "data."), which is
// what /healthz shows and what the security team greps for.
type TestsFailedError struct {
	Revision string
	Tests    []string
	// Details holds one line per failure with its file:row and error.
	Details []string
}

func (e *TestsFailedError) Error() string {
	return fmt.Sprintf("policy revision %s fails %d of its tests: %s", e.Revision, len(e.Tests), strings.Join(e.Details, "; "))
}

// test runs the candidate's tests against its own modules and data with
// OPA's tester (the one `opa test` uses). A test that errors fails like
// one that is false; a candidate without tests passes.
func (c *candidate) test(ctx context.Context) error {
	if _, passed := testsPassed.get(c.digest); len(c.tests) == 0 || passed {
		return nil
	}
	failed, details, deterministic, err := runTests(ctx, c.files, c.tests)
	if err != nil {
		return fmt.Errorf("policy revision %s: run tests: %w", c.revision, err)
	}
	if len(failed) > 0 {
		return &TestsFailedError{Revision: c.revision, Tests: failed, Details: details}
	}
	if deterministic {
		testsPassed.put(c.digest, struct{}{})
	}
	return nil
}

// testsPassed remembers the last candidates (by digest: every policy,
// data and test file) whose tests passed in this process and call no
// non-deterministic built-in, so that loading the same policy again (a
// Caddy reload that changed another setting, a second site's gate, each
// gate a test starts) does not run them again: the same files give the
// same results. About 140 ms a load with the shipped tests, 1 s under
// the race detector. Failures are never remembered: a failing candidate
// is refused each time it is offered (the poller skips repeats itself).
var testsPassed = newMemo[struct{}](8)

// runTests loads files and tests together and returns the failing tests,
// and whether the result would be the same on every run (no module or
// test calls a non-deterministic built-in such as time.now_ns or
// http.send).
func runTests(ctx context.Context, files, tests snapshot) (failed, details []string, deterministic bool, err error) {
	all := fstest.MapFS{}
	maps.Copy(all, fstest.MapFS(files))
	maps.Copy(all, fstest.MapFS(tests))
	result, err := loader.NewFileLoader().WithFS(all).WithRegoVersion(ast.RegoV1).All([]string{"."})
	if err != nil {
		return nil, nil, false, err
	}
	store, err := result.Store()
	if err != nil {
		return nil, nil, false, err
	}
	txn, err := store.NewTransaction(ctx)
	if err != nil {
		return nil, nil, false, err
	}
	defer store.Abort(ctx, txn)
	modules := result.ParsedModules()
	deterministic = nondeterministicCall(modules) == ""
	results, err := tester.NewRunner().SetStore(store).SetModules(modules).
		SetTimeout(testTimeout).CapturePrintOutput(true).RunTests(ctx, txn)
	if err != nil {
		return nil, nil, false, err
	}
	for r := range results {
		if r.Pass() || r.Skip {
			continue
		}
		name := strings.TrimPrefix(r.Package, "data.") + "." + r.Name
		failed = append(failed, name)
		details = append(details, failureDetail(name, r))
	}
	return failed, details, deterministic, nil
}

// failureDetail is one failure for the log: where, and the error if any.
func failureDetail(name string, r *tester.Result) string {
	where := ""
	if r.Location != nil {
		where = fmt.Sprintf(" (%s:%d)", r.Location.File, r.Location.Row)
	}
	if r.Error != nil {
		return name + where + ": " + r.Error.Error()
	}
	return name + where + ": false"
}

// RunTests runs the *_test.rego of the policy directory dir against its
// policy and data, and returns the failing tests (nil when all pass). It
// is what a reload runs, for `wikigate policy build`.
func RunTests(ctx context.Context, dir string) (*TestsFailedError, error) {
	c, err := dirCandidate(dir)
	if err != nil {
		return nil, err
	}
	err = c.test(ctx)
	if tf, ok := err.(*TestsFailedError); ok {
		return tf, nil
	}
	return nil, err
}
