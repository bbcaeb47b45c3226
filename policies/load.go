package policies

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing/fstest"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// prepared is one loaded policy: the prepared query, the revision of the
// files it was built from and its decision cache (nil when disabled, or
// when the policy calls a nondeterministic built-in such as time.now_ns, so
// that the same input may not get the same decision twice). It is shared by
// every request; only the cache changes.
type prepared struct {
	query rego.PreparedEvalQuery
	tool  *rego.PreparedEvalQuery // ToolQuery; nil when the policy does not define it
	// wasm, when set, decides instead of query and tool (EvaluatorWasm,
	// or EvaluatorAuto once the cross-check passed); query and tool stay
	// for what runs on topdown.
	wasm *wasmQueries
	// Under EvaluatorAuto: how many calls the cross-check compared, or why
	// topdown decides (the Wasm compile or cross-check failed).
	crossChecked  int
	topdownReason string
	revision      string
	digest        string        // SHA-256 of the served files (Decision.Digest)
	sources       snapshot      // those files, kept on disk by KeepRevisions
	keepResult    bool          // a decision log is on: decisions keep the policy's result
	attributed    *attributions // denials' rules (attribution.go)
	rego          string        // digest of the Rego modules alone: all the Wasm compile reads
	key           string        // candidate.key: is a new candidate this same policy?
	cache         *decisionCache
	// uncacheable names the nondeterministic built-in that turned the
	// cache off, for the load log line.
	uncacheable string
}

// snapshot is the policy directory read into memory once. Hashing and
// compiling the same bytes guarantees that a revision names exactly the policy
// that decided, even when files change while a reload runs.
type snapshot fstest.MapFS

// isPolicyFile reports whether a file is part of the served policy: Rego
// modules and JSON/YAML data, never *_test.rego.
func isPolicyFile(name string) bool {
	if strings.HasSuffix(name, "_test.rego") {
		return false
	}
	switch filepath.Ext(name) {
	case ".rego", ".json", ".yaml", ".yml":
		return true
	}
	return false
}

// excludeTests is the loader filter (true = exclude). The snapshot already
// skips tests; the filter keeps the loader honest if that ever changes.
func excludeTests(_ string, info fs.FileInfo, _ int) bool {
	return !info.IsDir() && strings.HasSuffix(info.Name(), "_test.rego")
}

// readTree reads every policy file under dir, and apart from them its
// *_test.rego. Hidden entries are skipped: editors' lock files and
// Kubernetes ConfigMap "..data" directories (whose files are reached through
// the top-level symlinks) are not policy.
func readTree(dir string) (files, tests snapshot, err error) {
	files, tests = snapshot{}, snapshot{}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path == filepath.Join(dir, oldSchemaDir) {
			if err := refuseOldSchemaFolder(path); err != nil {
				return err
			}
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
			return nil
		case isTestFile(d.Name()):
			return tests.add(dir, path)
		case isPolicyFile(d.Name()):
			return files.add(dir, path)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read policy dir: %w", err)
	}
	return files, tests, nil
}

// add reads one file, following a symlink to a regular file.
func (s snapshot) add(dir, path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return err
	}
	s[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data, Mode: 0o444}
	return nil
}

// revision is a short sha256 over the sorted file names and contents.
func (s snapshot) revision() string {
	return hashOf(s.entries())[:12]
}

// entries are the snapshot's files by name.
func (s snapshot) entries() map[string][]byte {
	entries := make(map[string][]byte, len(s))
	for name, f := range s {
		entries[name] = f.Data
	}
	return entries
}

// regoDigest hashes the Rego modules alone (the data left out): a data-only
// edit, such as a new agent, compiles to the same Wasm module.
func (s snapshot) regoDigest() string {
	entries := map[string][]byte{}
	for name, f := range s {
		if filepath.Ext(name) == ".rego" {
			entries[name] = f.Data
		}
	}
	return hashOf(entries)
}

func (s snapshot) hasModules() bool {
	for name := range s {
		if filepath.Ext(name) == ".rego" {
			return true
		}
	}
	return false
}

// compile loads, compiles and prepares the snapshot. Errors carry
// the compiler's own message (file:line: rego_..._error: ...), which is what a
// security engineer needs to fix a broken policy.
//
// recent are calls the serving revision answered, which EvaluatorAuto's
// cross-check decides too.
func (s snapshot) compile(ctx context.Context, query string, cacheSize int, evaluator string, recent []Input) (*prepared, error) {
	if !s.hasModules() {
		return nil, errors.New("no policy (*.rego) files")
	}
	result, err := loader.NewFileLoader().
		WithFS(fstest.MapFS(s)).
		WithRegoVersion(ast.RegoV1).
		Filtered([]string{"."}, excludeTests)
	if err != nil {
		return nil, fmt.Errorf("load policy: %w", err)
	}
	if err := CheckData(result.Documents); err != nil {
		return nil, err
	}
	compiler, err := compileTyped(result.ParsedModules())
	if err != nil {
		return nil, fmt.Errorf("compile policy: %w", err)
	}
	if err := checkQueryDefined(compiler, query); err != nil {
		return nil, err
	}
	// AST values on read: the data is converted once here, not on every
	// read of every evaluation.
	store, err := result.StoreWithOpts(inmem.OptReturnASTValuesOnRead(true))
	if err != nil {
		return nil, fmt.Errorf("load policy data: %w", err)
	}
	pq, err := rego.New(rego.Query(query), rego.Compiler(compiler), rego.Store(store),
		rego.GenerateJSON(keepTerm)).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("prepare policy query: %w", err)
	}
	tool, err := prepareToolQuery(ctx, compiler, store)
	if err != nil {
		return nil, err
	}
	p := &prepared{query: pq, tool: tool, revision: s.revision(), rego: s.regoDigest(), uncacheable: nondeterministicCall(compiler.Modules),
		attributed: newAttributions()}
	// Fresh parses: the modules compiled above belong to the compiler.
	switch evaluator {
	case EvaluatorWasm:
		if err := p.useWasm(ctx, result.ParsedModules(), result.Documents, query, recent); err != nil {
			return nil, err
		}
	case EvaluatorAuto:
		p.useWasmIfSame(ctx, result.ParsedModules(), result.Documents, query, recent)
	}
	if p.uncacheable == "" {
		p.cache = newDecisionCache(cacheSize)
	}
	return p, nil
}

// checkQueryDefined refuses a policy that has no rule for a plain-reference
// query: a renamed package or rule would otherwise load fine and then deny
// every call.
func checkQueryDefined(compiler *ast.Compiler, query string) error {
	ref, err := ast.ParseRef(query)
	if err != nil || !ref.HasPrefix(ast.DefaultRootRef) {
		return nil // not a plain data reference; evaluation will tell
	}
	if len(compiler.GetRules(ref)) == 0 {
		return fmt.Errorf("policy defines no rule for query %s", query)
	}
	return nil
}

// nondeterministicCall names a nondeterministic built-in (time.now_ns,
// http.send, rand.intn...) the policy calls, or "" when it calls none.
func nondeterministicCall(modules map[string]*ast.Module) string {
	found := ""
	visit := func(name string) {
		if b, ok := ast.BuiltinMap[name]; ok && b.Nondeterministic && found == "" {
			found = name
		}
	}
	for _, module := range modules {
		ast.WalkExprs(module, func(e *ast.Expr) bool {
			if e.IsCall() {
				visit(e.Operator().String())
			}
			return false
		})
		ast.WalkTerms(module, func(t *ast.Term) bool {
			if call, ok := t.Value.(ast.Call); ok && len(call) > 0 {
				visit(call[0].String())
			}
			return false
		})
	}
	return found
}

// oldSchemaDir is where the JSON Schemas were kept inside the policy
// folder before they moved out of it (to policyschema/ in the wikigate
// repository, compiled into the gate).
const oldSchemaDir = "schema"

// refuseOldSchemaFolder refuses a policy folder that still holds the old
// schema folder, with what to do: OPA's tools load every JSON file of it
// as data.schema (a merge error that names nothing), and the gate loads
// the folder as they do.
func refuseOldSchemaFolder(path string) error {
	for _, name := range []string{"input.json", "decision.json"} {
		raw, err := os.ReadFile(filepath.Join(path, name))
		if err == nil && strings.Contains(string(raw), `"$schema"`) {
			return fmt.Errorf("%s holds JSON Schemas, which are no longer part of a policy folder (the gate has them built in; OPA's tools would load them as data.schema): delete the folder", path)
		}
	}
	return nil
}
