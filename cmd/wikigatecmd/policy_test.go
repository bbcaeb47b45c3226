package wikigatecmd

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/policies"
)

func TestPolicyBuildWritesABundleTheGateLoads(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b.tar.gz")
	var stdout bytes.Buffer
	f := buildFlags{dir: "../../rego", out: out, revision: "cli-1", key: "env:WIKIGATE_TEST_BUNDLE_SECRET", alg: "HS256", keyID: "ci", stdout: &stdout}
	t.Setenv("WIKIGATE_TEST_BUNDLE_SECRET", "s3cret")
	if err := f.run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "wasm: decides like topdown on ") {
		t.Errorf("build output %q does not say the gates decide the shipped policy with wasm", stdout.String())
	}
	engine, err := policies.New(t.Context(), policies.Options{Bundle: &policies.BundleOptions{Source: out,
		Keys: map[string]policies.VerificationKey{"ci": {Algorithm: "HS256", Key: "s3cret"}}}})
	if err != nil || engine.Revision() != "cli-1" {
		t.Fatalf("the gate loads the built bundle: %v", err)
	}
}

// TestPolicyBuildWarnsWhenWasmDecidesDifferently: a policy whose denial
// reason lists a set in iteration order (which differs in Wasm) still
// builds, and the build says gates will decide it with topdown and why.
func TestPolicyBuildWarnsWhenWasmDecidesDifferently(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "policy.rego"), []byte(`package wikigate

decision := {"allow": false, "code": "forbidden_scope", "reason": concat(" ", [s | some s in {input.tool, input.endpoint, input.action, "zz", "aa"}])}
`), 0o644)
	var stdout bytes.Buffer
	out := filepath.Join(t.TempDir(), "b.tar.gz")
	if err := (&buildFlags{dir: dir, out: out, stdout: &stdout}).run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := stdout.String(); !strings.Contains(got, "warning: gates will decide this policy with topdown") || !strings.Contains(got, "wasm decides differently from topdown") {
		t.Errorf("build output %q does not warn about the difference", got)
	}
}

func TestPolicyBuildRefusesFailingTests(t *testing.T) {
	dir := t.TempDir()
	files, _ := filepath.Glob("../../rego/*")
	for _, src := range files {
		raw, _ := os.ReadFile(src)
		os.WriteFile(filepath.Join(dir, filepath.Base(src)), raw, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "zz_test.rego"), []byte("package wikigate_test\n\ntest_always_fails if false\n"), 0o644)
	out := filepath.Join(t.TempDir(), "b.tar.gz")
	err := (&buildFlags{dir: dir, out: out}).run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "wikigate_test.test_always_fails") {
		t.Fatalf("build with a failing test: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("a bundle was written despite the failing test")
	}
}

// TestPolicyBuildRefusesATypo: a policy reading a field the input schema
// does not have (input.scope.paht) is refused with the type error, before
// its tests run.
func TestPolicyBuildRefusesATypo(t *testing.T) {
	dir := t.TempDir()
	files, _ := filepath.Glob("../../rego/*.*")
	for _, src := range files {
		raw, _ := os.ReadFile(src)
		if filepath.Base(src) == "scope.rego" {
			raw = []byte(strings.Replace(string(raw), "req_paths := input.scope.paths if", "req_paths := input.scope.paht if", 1))
		}
		os.WriteFile(filepath.Join(dir, filepath.Base(src)), raw, 0o644)
	}
	out := filepath.Join(t.TempDir(), "b.tar.gz")
	err := (&buildFlags{dir: dir, out: out}).run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "scope.rego:") || !strings.Contains(err.Error(), "undefined ref: input.scope.paht") {
		t.Fatalf("build with a typo: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("a bundle was written despite the typo")
	}
}

// An EC signing key without --signing-alg signs as ES256 (RS256, OPA's
// default, fails on it with a library error), and the gate verifies it.
func TestPolicyBuildSignsWithAnECKeyByItsCurve(t *testing.T) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	pub, _ := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "team.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "b.tar.gz")
	var stdout bytes.Buffer
	if err := (&buildFlags{dir: "../../rego", out: out, key: keyFile, keyID: "team", stdout: &stdout}).run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "signed ES256") {
		t.Errorf("build output %q", stdout.String())
	}
	verify := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}))
	if _, err := policies.New(t.Context(), policies.Options{Bundle: &policies.BundleOptions{Source: out,
		Keys: map[string]policies.VerificationKey{"team": {Algorithm: "ES256", Key: verify}}}}); err != nil {
		t.Fatalf("the gate loads the bundle signed with the EC key: %v", err)
	}
}
