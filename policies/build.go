package policies

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"testing/fstest"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/loader"
)

// BuildOptions shape a bundle written by BuildBundle.
type BuildOptions struct {
	// Revision is the manifest's revision; "" uses the revision the gate
	// shows for the directory itself, so a bundle and its folder agree.
	Revision string
	// SigningKey, when set, signs the bundle (.signatures.json): a PEM
	// private key or its file for RS256/ES256..., the secret for HS256.
	SigningKey string
	// SigningAlg defaults to RS256 (OPA's default).
	SigningAlg string
	// KeyID names the signing key in the signature (kid).
	KeyID string
}

// BuildBundle writes the policy directory dir as an OPA bundle (.tar.gz:
// .manifest, data.json, the .rego files; never *_test.rego), the format
// `opa build` writes, after checking that it compiles. It returns the
// bundle's revision.
func BuildBundle(ctx context.Context, dir string, w io.Writer, opts BuildOptions) (string, error) {
	c, err := dirCandidate(dir)
	if err != nil {
		return "", err
	}
	if _, err := c.files.compile(ctx, DefaultQuery, -1, EvaluatorTopdown, nil); err != nil {
		return "", fmt.Errorf("policy in %s: %w", dir, err)
	}
	b, err := c.bundle(opts.Revision)
	if err != nil {
		return "", err
	}
	if opts.SigningKey != "" {
		sc := bundle.NewSigningConfig(opts.SigningKey, opts.SigningAlg, "")
		if err := b.GenerateSignature(sc, opts.KeyID, false); err != nil {
			return "", fmt.Errorf("sign bundle: %w", err)
		}
	}
	if err := bundle.NewWriter(w).DisableFormat(true).Write(*b); err != nil {
		return "", fmt.Errorf("write bundle: %w", err)
	}
	return b.Manifest.Revision, nil
}

// CheckWasm says whether gates on the default evaluator (EvaluatorAuto)
// will decide the policy in dir with Wasm: it compiles it to Wasm and runs
// the load's cross-check (without the recent calls a reload adds). It
// returns how many calls decided alike, or why gates would decide the
// policy with topdown: it failed the check (EvaluatorWasm refuses it) or
// calls a non-deterministic built-in.
func CheckWasm(ctx context.Context, dir string) (int, error) {
	c, err := dirCandidate(dir)
	if err != nil {
		return 0, err
	}
	p, err := c.files.compile(ctx, DefaultQuery, -1, EvaluatorAuto, nil)
	if err != nil {
		return 0, err
	}
	if p.wasm == nil {
		return 0, errors.New(p.topdownReason)
	}
	p.wasm.close()
	return p.crossChecked, nil
}

// bundle assembles the candidate's modules and merged data.
func (c *candidate) bundle(revision string) (*bundle.Bundle, error) {
	if revision == "" {
		revision = c.revision
	}
	result, err := loader.NewFileLoader().WithFS(fstest.MapFS(c.files)).
		WithRegoVersion(ast.RegoV1).Filtered([]string{"."}, excludeTests)
	if err != nil {
		return nil, fmt.Errorf("load policy: %w", err)
	}
	b := &bundle.Bundle{Manifest: bundle.Manifest{Revision: revision}, Data: result.Documents}
	if b.Data == nil {
		b.Data = map[string]any{}
	}
	for _, name := range slices.Sorted(maps.Keys(c.files)) {
		if !isRegoFile(name) {
			continue
		}
		path := "/" + name
		b.Modules = append(b.Modules, bundle.ModuleFile{URL: path, Path: path, Raw: c.files[name].Data})
	}
	b.Manifest.Init()
	return b, nil
}

func isRegoFile(name string) bool { return len(name) > 5 && name[len(name)-5:] == ".rego" }
