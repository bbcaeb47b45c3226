package wikigatecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/policies"
)

// policyTestTimeout bounds one test rule, as the gate's reload does, so a
// test that loops cannot hang CI.
const policyTestTimeout = 30 * time.Second

type testFlags struct {
	dir         string
	coverage    bool
	minCoverage float64
	stdout      io.Writer // nil: os.Stdout
}

// policyTestCommand is `wikigate policy test [DIR]`: the folder's
// *_test.rego run the way the gate runs them before a policy may serve
// (rego/README.md, Testing), without the repo's Go module or an opa binary.
func policyTestCommand() *cobra.Command {
	var f testFlags
	c := &cobra.Command{
		Use:   "test [DIR]",
		Short: "Runs a policy folder's tests (default rego), with --coverage and --min-coverage",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.dir = "rego"
			if len(args) == 1 {
				f.dir = args[0]
			}
			if f.minCoverage < 0 || f.minCoverage > 100 {
				return fmt.Errorf("--min-coverage %v: give a percentage between 0 and 100", f.minCoverage)
			}
			cmd.SilenceUsage = true
			return f.run(cmd.Context())
		},
	}
	fl := c.Flags()
	fl.BoolVar(&f.coverage, "coverage", false, "print each policy file's coverage and the total")
	fl.Float64Var(&f.minCoverage, "min-coverage", 0, "fail when the policy's coverage (test files excluded) is below this percentage; implies --coverage")
	return c
}

func (f *testFlags) run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	w := f.stdout
	if w == nil {
		w = os.Stdout
	}
	// The served modules first, type-checked against the gate's schemas as
	// a load does: a typo is reported as one, not as the tests it breaks.
	if err := policies.CheckDir(ctx, f.dir); err != nil {
		return err
	}
	modules, store, err := tester.LoadWithRegoVersion([]string{f.dir}, notPolicy, ast.RegoV1)
	if err != nil {
		return fmt.Errorf("load %s: %w", f.dir, err)
	}
	failed, cov, err := runPolicyTests(ctx, w, modules, store, f.coverage || f.minCoverage > 0)
	if err != nil {
		return err
	}
	var below error
	if cov != nil {
		below = reportCoverage(w, cov.Report(modules), f.minCoverage)
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d policy tests fail: %s", len(failed), strings.Join(failed, ", "))
	}
	return below
}

// notPolicy is the loader filter (true leaves the entry out) for what the
// gate does not load from a policy folder: hidden entries (editors' files, ConfigMap
// ..data directories).
func notPolicy(path string, info fs.FileInfo, depth int) bool {
	return depth >= 1 && strings.HasPrefix(info.Name(), ".")
}

// runPolicyTests runs every test_* rule, prints each like `opa test -v`,
// and returns the failing ones by name (package.rule).
func runPolicyTests(ctx context.Context, w io.Writer, modules map[string]*ast.Module, store storage.Store, coverage bool) (failed []string, cov *cover.Cover, err error) {
	txn, err := store.NewTransaction(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer store.Abort(ctx, txn)
	runner := tester.NewRunner().SetStore(store).SetModules(modules).
		SetTimeout(policyTestTimeout).CapturePrintOutput(true)
	if coverage {
		cov = cover.New()
		runner = runner.SetCoverageQueryTracer(cov)
	}
	results, err := runner.RunTests(ctx, txn)
	if err != nil {
		return nil, nil, err
	}
	seen := make(chan *tester.Result)
	ran := 0
	go func() {
		defer close(seen)
		for r := range results {
			ran++
			if !r.Pass() && !r.Skip {
				failed = append(failed, strings.TrimPrefix(r.Package, "data.")+"."+r.Name)
			}
			seen <- r
		}
	}()
	if err := (tester.PrettyReporter{Verbose: true, Output: w}).Report(seen); err != nil {
		return nil, nil, err
	}
	if ran == 0 {
		return nil, nil, errors.New("no test_* rules in any *_test.rego")
	}
	return failed, cov, nil
}

// reportCoverage prints the coverage of each policy file with its lines
// not covered, and the total over policy files: test files are left out
// of the total, which is why it is lower than `opa test --coverage`'s
// (printed too, for comparison). It fails when the total is below min.
func reportCoverage(w io.Writer, r cover.Report, min float64) error {
	fmt.Fprintf(w, "\ncoverage:\n")
	covered, notCovered := 0, 0
	for _, file := range slices.Sorted(maps.Keys(r.Files)) {
		if strings.HasSuffix(file, "_test.rego") {
			continue
		}
		fr := r.Files[file]
		covered += fr.CoveredLines
		notCovered += fr.NotCoveredLines
		fmt.Fprintf(w, "  %-40s %6.2f%% (%d/%d lines)%s\n", filepath.ToSlash(file), fr.Coverage,
			fr.CoveredLines, fr.CoveredLines+fr.NotCoveredLines, notCoveredRows(fr.NotCovered))
	}
	total := 100.0
	if covered+notCovered > 0 {
		total = 100 * float64(covered) / float64(covered+notCovered)
	}
	fmt.Fprintf(w, "total: %.2f%% of policy lines (%d/%d); with test files, as opa test --coverage counts: %.2f%%\n",
		total, covered, covered+notCovered, r.Coverage)
	if min > 0 && total < min {
		return fmt.Errorf("coverage %.2f%% is below --min-coverage %v", total, min)
	}
	return nil
}

// notCoveredRows lists a file's lines no test reached, e.g. " not covered: 12, 40-42".
func notCoveredRows(rs []cover.Range) string {
	if len(rs) == 0 {
		return ""
	}
	parts := make([]string, 0, len(rs))
	for _, rg := range rs {
		part := fmt.Sprint(rg.Start.Row)
		if rg.Start.Row != rg.End.Row {
			part = fmt.Sprintf("%d-%d", rg.Start.Row, rg.End.Row)
		}
		if len(parts) == 0 || parts[len(parts)-1] != part { // two ranges on one line
			parts = append(parts, part)
		}
	}
	return " not covered: " + strings.Join(parts, ", ")
}
