package policyreplay

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"

	"github.com/wikigate/wikigate/policies"
)

// DiffOptions say which two policies `wikigate policy diff` compares.
type DiffOptions struct {
	Old, Candidate string // policy folders or bundle files (.tar.gz)
	JSON           bool   // print the changes as JSON (a PR comment, a bot)
	AllowWidening  bool   // report a widening without failing
}

// RunDiff compares the grants of o.Old and o.Candidate, prints them and
// returns ErrWidens when the candidate widens access (unless allowed).
func RunDiff(out io.Writer, o DiffOptions) error {
	g, err := Diff(o.Old, o.Candidate)
	if err != nil {
		return err
	}
	if o.JSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(g); err != nil {
			return err
		}
	} else {
		g.Print(out, o.Old, o.Candidate)
	}
	if len(g.Widened()) > 0 && !o.AllowWidening {
		return ErrWidens
	}
	return nil
}

// Diff loads the data of two policies and compares their grants.
func Diff(old, cand string) (*GrantDiff, error) {
	od, err := LoadData(old)
	if err != nil {
		return nil, err
	}
	nd, err := LoadData(cand)
	if err != nil {
		return nil, err
	}
	g := DiffData(od, nd)
	if g.Changes == nil {
		g.Changes = []Change{}
	}
	return g, nil
}

// LoadData reads a policy folder's data as the gate merges it (its tests,
// schema folder and hidden entries left out), or a bundle file's, and
// checks it against the data schema: a diff of data the gate would refuse
// would compare members the policy never reads.
func LoadData(path string) (map[string]any, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if info.IsDir() {
		res, err := loader.NewFileLoader().WithRegoVersion(ast.RegoV1).Filtered([]string{path}, notPolicyData)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", path, err)
		}
		doc = res.Documents
	} else {
		b, err := loader.NewFileLoader().WithRegoVersion(ast.RegoV1).AsBundle(path)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %w", path, err)
		}
		doc = b.Data
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	doc = nil
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	if err := policies.CheckData(doc); err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	return doc, nil
}

// notPolicyData is the loader filter (true leaves the entry out).
func notPolicyData(abs string, info fs.FileInfo, depth int) bool {
	if depth > 0 && strings.HasPrefix(info.Name(), ".") {
		return true
	}
	return !info.IsDir() && strings.HasSuffix(info.Name(), "_test.rego")
}

// Print writes the widenings first, each in plain words, then the rest and
// a one-line summary.
func (g *GrantDiff) Print(out io.Writer, old, cand string) {
	fmt.Fprintf(out, "grant diff: %s → %s\n", old, cand)
	counts := map[string]int{}
	for _, kind := range []string{Widens, Narrows, Changes} {
		for _, c := range g.Changes {
			if c.Kind == kind {
				counts[kind]++
				fmt.Fprintf(out, "  %-8s %s: %s\n", strings.ToUpper(kind), c.Subject, c.What)
			}
		}
	}
	switch {
	case counts[Widens] > 0:
		fmt.Fprintf(out, "%d widening(s), %d narrowing(s), %d other change(s): the candidate widens access\n", counts[Widens], counts[Narrows], counts[Changes])
	case len(g.Changes) == 0:
		fmt.Fprintln(out, "grants equal: nothing widens")
	default:
		fmt.Fprintf(out, "nothing widens: %d narrowing(s), %d other change(s)\n", counts[Narrows], counts[Changes])
	}
}
