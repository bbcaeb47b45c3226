package caddymodule

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/wikigate/wikigate/policies"
)

// PolicyConfig is the policy block: how candidate policies are checked
// before they serve, and where they come from when not from policy_dir.
type PolicyConfig struct {
	// RequireTests runs a candidate's *_test.rego before it serves and
	// refuses it unless all pass. Default true.
	RequireTests *bool `json:"require_tests,omitempty"`
	// Bundle loads the policy from an OPA bundle instead of policy_dir: a
	// bundle directory, a .tar.gz file, or an http(s) bundle server URL.
	Bundle string `json:"bundle,omitempty"`
	// PollMin and PollMax bound the wait between bundle polls (10s, 60s).
	PollMin caddy.Duration `json:"bundle_poll_min,omitempty"`
	PollMax caddy.Duration `json:"bundle_poll_max,omitempty"`
	// VerificationKeys verify the bundle's .signatures.json (kid → key);
	// with any key set an unsigned bundle is refused.
	VerificationKeys map[string]BundleKey `json:"verification_keys,omitempty"`
	// VerificationKeyID is the key for a signature that names no kid.
	VerificationKeyID string `json:"verification_key_id,omitempty"`
	// VerificationScope must match the signature's scope claim when set.
	VerificationScope string `json:"verification_scope,omitempty"`
	// DecisionLog writes each decision as an OPA decision-log event to the
	// logger http.handlers.wikigate.decisions (route it with Caddy's log)
	// and/or uploads it to a decision-log service.
	DecisionLog *DecisionLogConfig `json:"decision_log,omitempty"`
	// Evaluator decides calls: "auto" (the default: Wasm when the policy
	// compiles to it and decides a corpus of calls exactly as topdown does
	// at load, else topdown, with the reason logged), "topdown" (OPA's
	// evaluator) or "wasm" (the policy compiled to Wasm at every load, a
	// policy that does not compile to it or fails the same check refused).
	// Policy tests always run on topdown.
	Evaluator string `json:"evaluator,omitempty"`
	// KeepRevisions is how many served revisions' sources are kept in
	// RevisionsDir for `wikigate policy explain` (policies.DefaultKeepRevisions
	// when unset; 0 after `keep_revisions off`: none).
	KeepRevisions *int `json:"keep_revisions,omitempty"`
	// RevisionsDir: default $WIKIGATE_DATA_DIR/policy-revisions, else
	// Caddy's data directory's wikigate/policy-revisions.
	RevisionsDir string `json:"revisions_dir,omitempty"`
}

// BundleKey is one verification key: a PEM public key file for RS*/ES*/PS*,
// the shared secret for HS* ({env.NAME} recommended).
type BundleKey struct {
	Algorithm string `json:"algorithm"`
	KeyFile   string `json:"key_file,omitempty"`
	Secret    string `json:"secret,omitempty"`
}

// unmarshal parses:
//
//	policy {
//		require_tests       on|off
//		bundle              <dir | file.tar.gz | https://...>
//		bundle_poll         <min> [<max>]
//		verification_key    <kid> <alg> <pem file | secret>
//		verification_key_id <kid>
//		verification_scope  <scope>
//		decision_log        [buffer <n>] [mask </input/path>...] [{ service ... }]
//		evaluator           auto|topdown|wasm
//		keep_revisions      <n> [<dir>] | off
//	}
func (p *PolicyConfig) unmarshal(d *caddyfile.Dispenser) error {
	return parseBlock(d, "policy", map[string]func() error{
		"require_tests":       func() error { return onOff(d, &p.RequireTests) },
		"bundle":              func() error { return oneArg(d, &p.Bundle) },
		"bundle_poll":         func() error { return p.unmarshalPoll(d) },
		"verification_key":    func() error { return p.unmarshalKey(d) },
		"verification_key_id": func() error { return oneArg(d, &p.VerificationKeyID) },
		"verification_scope":  func() error { return oneArg(d, &p.VerificationScope) },
		"decision_log":        func() error { return p.unmarshalDecisionLog(d) },
		"evaluator":           func() error { return p.unmarshalEvaluator(d) },
		"keep_revisions":      func() error { return p.unmarshalKeep(d) },
	}, "verification_key")
}

func (p *PolicyConfig) unmarshalKeep(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) == 1 && args[0] == "off" {
		none := 0
		p.KeepRevisions = &none
		return nil
	}
	if len(args) < 1 || len(args) > 2 {
		return d.ArgErr()
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 || n > 1000 {
		return d.Errf("keep_revisions %q: want a count from 1 to 1000, or off", args[0])
	}
	p.KeepRevisions = &n
	if len(args) == 2 {
		p.RevisionsDir = args[1]
	}
	return nil
}

// keptRevisions sets where and how many served revisions' sources the
// engine keeps (docs/security.md, Explaining a denial): on by default, so a
// denial recorded today can be explained after the policy moved on.
func (p *PolicyConfig) keptRevisions(opts *policies.Options) {
	n, dir := policies.DefaultKeepRevisions, ""
	if p != nil {
		if p.KeepRevisions != nil {
			n = *p.KeepRevisions
		}
		dir = p.RevisionsDir
	}
	if n <= 0 {
		return
	}
	if dir == "" {
		dir = DefaultRevisionsDir()
	}
	opts.RevisionsDir, opts.KeepRevisions = dir, n
}

// DefaultRevisionsDir is where a gate keeps served policy revisions when
// keep_revisions names no folder: the gate's data directory
// (WIKIGATE_DATA_DIR, set by wikigate run), else Caddy's.
func DefaultRevisionsDir() string {
	if d := os.Getenv("WIKIGATE_DATA_DIR"); d != "" {
		return filepath.Join(d, "policy-revisions")
	}
	return filepath.Join(caddy.AppDataDir(), "wikigate", "policy-revisions")
}

func (p *PolicyConfig) unmarshalEvaluator(d *caddyfile.Dispenser) error {
	if err := oneArg(d, &p.Evaluator); err != nil {
		return err
	}
	switch p.Evaluator {
	case policies.EvaluatorAuto, policies.EvaluatorTopdown, policies.EvaluatorWasm:
		return nil
	}
	return d.Errf("evaluator %q: want %s, %s or %s", p.Evaluator, policies.EvaluatorAuto, policies.EvaluatorTopdown, policies.EvaluatorWasm)
}

func (p *PolicyConfig) unmarshalPoll(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) < 1 || len(args) > 2 {
		return d.ArgErr()
	}
	durs := make([]caddy.Duration, len(args))
	for i, a := range args {
		v, err := caddy.ParseDuration(a)
		if err != nil || v <= 0 {
			return d.Errf("bad bundle_poll duration %q", a)
		}
		durs[i] = caddy.Duration(v)
	}
	p.PollMin = durs[0]
	if len(durs) == 2 {
		p.PollMax = durs[1]
	}
	return nil
}

func (p *PolicyConfig) unmarshalKey(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) != 3 {
		return d.ArgErr()
	}
	kid, alg, key := args[0], strings.ToUpper(args[1]), args[2]
	if p.VerificationKeys == nil {
		p.VerificationKeys = map[string]BundleKey{}
	}
	if _, dup := p.VerificationKeys[kid]; dup {
		return d.Errf("duplicate verification_key %q", kid)
	}
	k := BundleKey{Algorithm: alg}
	if strings.HasPrefix(alg, "HS") {
		k.Secret = key
	} else {
		k.KeyFile = key
	}
	p.VerificationKeys[kid] = k
	return nil
}

// engineOptions turns the handler's policy configuration into the
// engine's: policy_dir, or the bundle when one is configured (both at
// once would leave it unclear which policy serves, so that is an error).
func (h *Handler) engineOptions(repl *caddy.Replacer, obs policies.ReloadObserver) (policies.Options, error) {
	opts := policies.Options{Dir: h.PolicyDir, Logger: h.logger.Named("policy"), Observer: obs}
	p := h.Policy
	p.keptRevisions(&opts)
	if p == nil {
		if opts.Dir == "" {
			opts.Dir = "rego"
		}
		return opts, nil
	}
	opts.SkipTests = p.RequireTests != nil && !*p.RequireTests
	opts.Evaluator = p.Evaluator
	if p.DecisionLog != nil {
		dl, err := p.DecisionLog.options(repl, h.logger.Named("decisions"))
		if err != nil {
			return opts, err
		}
		opts.DecisionLog = dl
	}
	if p.Bundle == "" {
		if len(p.VerificationKeys) > 0 {
			return opts, fmt.Errorf("policy: verification_key needs a bundle")
		}
		if opts.Dir == "" {
			opts.Dir = "rego"
		}
		return opts, nil
	}
	if h.PolicyDir != "" {
		return opts, fmt.Errorf("policy: set either policy_dir or a bundle, not both")
	}
	b, err := p.bundleOptions(repl)
	opts.Dir, opts.Bundle = "", b
	return opts, err
}

func (p *PolicyConfig) bundleOptions(repl *caddy.Replacer) (*policies.BundleOptions, error) {
	b := &policies.BundleOptions{
		Source: repl.ReplaceAll(p.Bundle, ""), KeyID: p.VerificationKeyID, Scope: p.VerificationScope,
		PollMin: time.Duration(p.PollMin), PollMax: time.Duration(p.PollMax),
	}
	for kid, k := range p.VerificationKeys {
		key, err := k.material(repl)
		if err != nil {
			return nil, fmt.Errorf("policy: verification_key %q: %w", kid, err)
		}
		if b.Keys == nil {
			b.Keys = map[string]policies.VerificationKey{}
		}
		b.Keys[kid] = policies.VerificationKey{Algorithm: k.Algorithm, Key: key}
	}
	return b, nil
}

// material is the PEM text or the expanded secret.
func (k BundleKey) material(repl *caddy.Replacer) (string, error) {
	if k.KeyFile == "" {
		s := repl.ReplaceAll(k.Secret, "")
		if s == "" {
			return "", fmt.Errorf("empty secret (is its environment variable set?)")
		}
		return s, nil
	}
	pem, err := os.ReadFile(repl.ReplaceAll(k.KeyFile, ""))
	return string(pem), err
}
