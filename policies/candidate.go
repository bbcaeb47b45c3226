package policies

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// candidate is a policy read from its source but not serving yet: its files,
// its own tests, and the names that decide whether it is new. Nothing serves
// from a candidate until it has compiled and (unless tests are off) its tests
// have passed (docs/security.md, Editing and testing the policy).
type candidate struct {
	files snapshot // served modules and data; never *_test.rego
	tests snapshot // the candidate's *_test.rego, run before it may serve
	// revision names the policy everywhere (audit, healthz, cache key): the
	// bundle's manifest revision, or a hash of a directory's policy files.
	revision string
	// key says whether the candidate is the policy already serving: for a
	// directory its revision (an edit to a test alone changes nothing that
	// serves), for a bundle the hash of its bytes.
	key string
	// digest hashes everything the candidate holds, tests included, so that
	// the same failing candidate seen again by a poller is not compiled,
	// tested, logged and counted again.
	digest string
	// activated runs once the candidate serves (a bundle source remembers
	// its ETag only then, so a refused download is fetched and refused again
	// rather than hidden behind a 304).
	activated func()
}

// dirCandidate reads a policy directory, splitting its tests off.
func dirCandidate(dir string) (*candidate, error) {
	files, tests, err := readTree(dir)
	if err != nil {
		return nil, err
	}
	rev := files.revision()
	return &candidate{files: files, tests: tests, revision: rev, key: rev, digest: rev + "+" + tests.revision()}, nil
}

// build compiles the candidate and runs its tests when required; any
// failure leaves nothing to serve.
func (c *candidate) build(ctx context.Context, o buildOptions) (*prepared, error) {
	p, err := c.files.compile(ctx, o.query, o.cacheSize, o.evaluator, o.recent)
	if err != nil {
		return nil, err
	}
	p.revision, p.key = c.revision, c.key
	p.digest, p.sources = hashOf(c.files.entries()), c.files
	p.keepResult = o.keepResult
	if o.runTests {
		if err := c.test(ctx); err != nil {
			p.wasm.close()
			return nil, err
		}
	}
	return p, nil
}

// buildOptions are what building a candidate needs from the engine.
type buildOptions struct {
	query     string
	cacheSize int
	evaluator string
	runTests  bool
	recent    []Input // for EvaluatorAuto's cross-check
	// keepResult: a decision log is on, so Wasm decisions keep a copy of
	// the policy's result for it.
	keepResult bool
}

func (e *Engine) buildOptions() buildOptions {
	o := buildOptions{query: e.query, cacheSize: e.cacheSize, evaluator: e.evaluator, runTests: e.runTests, keepResult: e.decisionLogOn}
	if e.evaluator != EvaluatorTopdown {
		o.recent = e.recentInputs(crossCheckRecent)
	}
	return o
}

// hashOf hashes named byte strings, length prefixed so no two different sets
// hash alike.
func hashOf(entries map[string][]byte) string {
	h := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		data := entries[name]
		h.Write([]byte(strconv.Itoa(len(name)) + ":" + name + strconv.Itoa(len(data)) + ":"))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// isTestFile reports whether name is a Rego test module.
func isTestFile(name string) bool { return strings.HasSuffix(name, "_test.rego") }
