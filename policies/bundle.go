package policies

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing/fstest"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
)

// BundleOptions load the policy from an OPA bundle (the format `opa build`
// and `wikigate policy build` write: .manifest, data.json, *.rego and
// optionally .signatures.json) instead of a policy directory.
type BundleOptions struct {
	// Source is a bundle directory, a local .tar.gz, or an http(s) URL of a
	// bundle server (polled with If-None-Match).
	Source string
	// Keys verify .signatures.json when set: kid → key. A configured key
	// makes the signature mandatory: an unsigned or tampered bundle is
	// refused.
	Keys map[string]VerificationKey
	// KeyID is the key used when a signature names no kid.
	KeyID string
	// Scope, when set, must equal the signature's scope claim.
	Scope string
	// PollMin and PollMax bound the wait between polls: PollMin after a
	// success, doubling up to PollMax after failures. Defaults 10s and 60s.
	PollMin, PollMax time.Duration
	// HTTPClient fetches an http(s) Source; nil: a client with a 30s timeout.
	HTTPClient *http.Client
}

// VerificationKey is a bundle signing key: the PEM public key (RS256,
// ES256...) or the shared secret (HS256).
type VerificationKey struct {
	Algorithm string
	Key       string
}

// maxBundleBytes bounds a bundle read from a file or a server.
const maxBundleBytes = 64 << 20

// ErrBundleRefused marks a bundle that was read but not accepted: a bad or
// missing signature, a file that does not match its signed digest, or a
// format OPA's reader rejects.
var ErrBundleRefused = errors.New("bundle refused")

// verification is OPA's verification config for o, nil when no key is set.
func (o *BundleOptions) verification() *bundle.VerificationConfig {
	if len(o.Keys) == 0 {
		return nil
	}
	keys := make(map[string]*bundle.KeyConfig, len(o.Keys))
	for kid, k := range o.Keys {
		keys[kid] = &bundle.KeyConfig{Key: k.Key, Algorithm: k.Algorithm, Scope: o.Scope}
	}
	return bundle.NewVerificationConfig(keys, o.KeyID, o.Scope, nil)
}

// readBundle reads a bundle with OPA's reader, verifying its signature when
// vc is set, and makes a candidate of it.
func readBundle(loader bundle.DirectoryLoader, vc *bundle.VerificationConfig, digest string) (*candidate, error) {
	r := bundle.NewCustomReader(loader).WithRegoVersion(ast.RegoV1).WithSizeLimitBytes(maxBundleBytes)
	if vc != nil {
		r = r.WithBundleVerificationConfig(vc)
	}
	b, err := r.Read()
	if err != nil {
		return nil, &refusal{digest: digest, err: fmt.Errorf("%w: %w", ErrBundleRefused, err)}
	}
	c, err := bundleCandidate(&b, digest)
	if err != nil {
		return nil, &refusal{digest: digest, err: err}
	}
	return c, nil
}

// refusal is a bundle refused when read (signature, format), with the
// digest of its bytes: a poller that reads the same bytes again does not
// log and count the same refusal again.
type refusal struct {
	digest string
	err    error
}

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// failedRead records a source that gave no candidate. A bundle refused for
// the same bytes as the last refused one stays refused silently: a bundle
// server that keeps serving a tampered bundle gets one log line and one
// count, not one per poll. The caller holds reloadMu.
func (e *Engine) failedRead(err error) error {
	var r *refusal
	if errors.As(err, &r) {
		if r.digest == e.failedDigest {
			return e.LastReloadError()
		}
		e.failedDigest = r.digest
	}
	return e.failed(err)
}

// readTarball reads a .tar.gz bundle from its bytes.
func readTarball(data []byte, vc *bundle.VerificationConfig) (*candidate, error) {
	return readBundle(bundle.NewTarballLoader(bytes.NewReader(data)), vc, sha256Hex(data))
}

// readBundleFile reads a local bundle: a directory or a .tar.gz file.
func readBundleFile(path string, vc *bundle.VerificationConfig) (*candidate, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("policy bundle: %w", err)
	}
	if info.IsDir() {
		digest, err := treeDigest(path)
		if err != nil {
			return nil, fmt.Errorf("policy bundle: %w", err)
		}
		return readBundle(bundle.NewDirectoryLoader(path), vc, digest)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("policy bundle: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBundleBytes+1))
	if err != nil {
		return nil, fmt.Errorf("policy bundle: %w", err)
	}
	if len(data) > maxBundleBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrBundleRefused, maxBundleBytes)
	}
	return readTarball(data, vc)
}

// bundleCandidate turns a read bundle into the same files a policy
// directory gives: its modules under their paths, its data as one
// data.json at the root, its tests apart. A bundle's revision names it;
// a bundle without one is named by its digest.
func bundleCandidate(b *bundle.Bundle, digest string) (*candidate, error) {
	if len(b.WasmModules) > 0 || len(b.PlanModules) > 0 {
		return nil, fmt.Errorf("%w: wasm and plan bundles are not supported", ErrBundleRefused)
	}
	if b.Type() != bundle.SnapshotBundleType {
		return nil, fmt.Errorf("%w: delta bundles are not supported", ErrBundleRefused)
	}
	c := &candidate{files: snapshot{}, tests: snapshot{}, revision: b.Manifest.Revision, key: digest, digest: digest}
	for _, m := range b.Modules {
		name := strings.TrimPrefix(m.Path, "/")
		target := c.files
		if isTestFile(name) {
			target = c.tests
		}
		target[name] = &fstest.MapFile{Data: m.Raw, Mode: 0o444}
	}
	if _, clash := c.files["data.json"]; clash {
		return nil, fmt.Errorf("%w: a module named data.json", ErrBundleRefused)
	}
	data, err := json.Marshal(b.Data)
	if err != nil {
		return nil, fmt.Errorf("%w: data: %w", ErrBundleRefused, err)
	}
	c.files["data.json"] = &fstest.MapFile{Data: data, Mode: 0o444}
	if c.revision == "" {
		c.revision = digest[:12]
	}
	return c, nil
}

// treeDigest hashes every regular file under dir, hidden ones included
// (.manifest and .signatures.json are part of a bundle).
func treeDigest(dir string) (string, error) {
	entries := map[string][]byte{}
	err := walkFiles(dir, func(rel string, data []byte) { entries[rel] = data })
	if err != nil {
		return "", err
	}
	return hashOf(entries), nil
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// walkFiles calls visit with every regular file under dir (slash-separated
// relative name and contents).
func walkFiles(dir string, visit func(rel string, data []byte)) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		visit(filepath.ToSlash(rel), data)
		return nil
	})
}
