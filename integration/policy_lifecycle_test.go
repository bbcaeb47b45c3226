package integration

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wikigate/wikigate/policies"
)

// copyRegoWithTests copies rego/ with the team's *_test.rego, which a
// reload must pass.
func copyRegoWithTests(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	files, _ := filepath.Glob("../rego/*")
	for _, f := range files {
		if info, err := os.Stat(f); err != nil || info.IsDir() || filepath.Ext(f) == ".go" {
			continue // the Go tests beside the policy are not policy
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dst, filepath.Base(f)), string(raw))
	}
	return dst
}

func (g *gate) policyHealth(t *testing.T) (status string, policy map[string]any) {
	t.Helper()
	body := g.do(mustGet(t, g.url+"/healthz")).json(t)
	return body["status"].(string), body["policy"].(map[string]any)
}

func failingTests(policy map[string]any) []string {
	var names []string
	for _, n := range asSlice(policy["failingTests"]) {
		names = append(names, n.(string))
	}
	return names
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

// TestPolicyLifecycleTestedReload: an edit that breaks one of the team's
// tests never serves; /healthz names the test; the fix serves.
func TestPolicyLifecycleTestedReload(t *testing.T) {
	dir := copyRegoWithTests(t)
	g := startGate(t, gateOptions{policyDir: dir})
	_, policy := g.policyHealth(t)
	before := policy["revision"].(string)
	disabled := func() int {
		return g.post("/agent/tools/search", bearer(agentToken(t, "kunora-coding-agent")), `{"question":"agent memory"}`).Status
	}

	// The edit forgets to switch disabled agents off: it compiles, but
	// test_disabled_agent_unauthorized fails. Disable the coding agent in
	// the same edit, so serving it would show.
	identity := filepath.Join(dir, "identity.rego")
	orig, _ := os.ReadFile(identity)
	broken := strings.Replace(string(orig), "\tnot a.disabled\n", "", 1)
	if broken == string(orig) {
		t.Fatal("identity.rego no longer checks a.disabled; update this test")
	}
	writeFile(t, identity, broken)
	const want = "wikigate_test.test_disabled_agent_unauthorized"
	waitFor(t, "healthz to name the failing test", func() bool {
		_, p := g.policyHealth(t)
		return slices.Contains(failingTests(p), want)
	})
	status, policy := g.policyHealth(t)
	if status != "degraded" || policy["revision"] != before || policy["lastReloadFailed"] != true {
		t.Fatalf("healthz after a failing edit: %s %v", status, policy)
	}
	if code := disabled(); code != 200 {
		t.Fatalf("the last good policy must keep serving: %d", code)
	}

	// The fix (the check back, plus a new rule): a new revision serves.
	writeFile(t, identity, string(orig)+"\nlifecycle_fixed := true\n")
	waitFor(t, "the fixed policy to serve", func() bool {
		s, p := g.policyHealth(t)
		return s == "ok" && p["revision"] != before && p["lastReloadFailed"] == false
	})
	if _, p := g.policyHealth(t); len(failingTests(p)) != 0 {
		t.Fatalf("healthz still names failing tests: %v", p)
	}
	if code := disabled(); code != 200 {
		t.Fatalf("the fixed policy: %d", code)
	}
}

// bundleServer serves the bundle set last, with an ETag.
type bundleServer struct {
	mu   sync.Mutex
	body []byte
	etag string
}

func (s *bundleServer) set(body []byte, etag string) {
	s.mu.Lock()
	s.body, s.etag = body, `"`+etag+`"`
	s.mu.Unlock()
}

func (s *bundleServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	body, etag := s.body, s.etag
	s.mu.Unlock()
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", etag)
	_, _ = w.Write(body)
}

// TestPolicyLifecycleSignedBundle: a signed bundle over HTTP serves and its
// revision is in /healthz and the audit record; a tampered copy is refused
// with a log line and the old revision keeps serving; a newer one serves.
func TestPolicyLifecycleSignedBundle(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	priv, _ := x509.MarshalPKCS8PrivateKey(key)
	pub, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	pubFile := filepath.Join(t.TempDir(), "bundle.pub.pem")
	writeFile(t, pubFile, string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})))
	build := func(dir, rev string) []byte {
		var buf bytes.Buffer
		_, err := policies.BuildBundle(t.Context(), dir, &buf, policies.BuildOptions{Revision: rev, KeyID: "team",
			SigningAlg: "ES256", SigningKey: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: priv}))})
		if err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	srv := &bundleServer{}
	srv.set(build("../rego", "release-1"), "1")
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)

	g := startGate(t, gateOptions{})
	logs := filepath.Join(t.TempDir(), "gate.log")
	auditFile := filepath.Join(t.TempDir(), "audit.log")
	g.config = strings.Replace(g.config, "policy_dir "+g.policyDir,
		"policy {\n\t\t\tbundle "+hs.URL+"/bundles/wikigate.tar.gz\n\t\t\tbundle_poll 100ms 400ms\n\t\t\tverification_key team ES256 "+pubFile+"\n\t\t}", 1)
	g.config = strings.Replace(g.config, "\tlog {\n\t\toutput discard\n\t}\n",
		"\tlog {\n\t\toutput file "+logs+"\n\t\texclude http.handlers.wikigate.audit\n\t}\n\tlog audit {\n\t\toutput file "+auditFile+"\n\t\tinclude http.handlers.wikigate.audit\n\t}\n", 1)
	g.reload()

	if _, p := g.policyHealth(t); p["revision"] != "release-1" {
		t.Fatalf("healthz revision %v, want the bundle's", p["revision"])
	}
	tok := bearer(agentToken(t, "kunora-coding-agent"))
	search := func() response { return g.post("/agent/tools/search", tok, `{"question":"agent memory"}`) }
	r := search()
	if r.Status != 200 {
		t.Fatalf("search under the bundle: %d %s", r.Status, r.Body)
	}
	rec := auditRecord(t, auditFile, r.Header.Get("X-Request-Id"))
	if rev := rec["decision"].(map[string]any)["policy_revision"]; rev != "release-1" {
		t.Fatalf("audit record revision %v, want release-1", rev)
	}

	// Tampered: data.json edited after signing (the coding agent disabled).
	edited := copyDir(t, "../rego")
	editJSON(t, filepath.Join(edited, "data.json"), func(v any) any {
		v.(map[string]any)["agents"].(map[string]any)["kunora-coding-agent"].(map[string]any)["disabled"] = true
		return v
	})
	good := build("../rego", "release-2")
	srv.set(spliceDataJSON(t, good, build(edited, "release-2")), "2")
	waitFor(t, "the refusal in the log", func() bool {
		raw, _ := os.ReadFile(logs)
		return bytes.Contains(raw, []byte("policy reload failed")) && bytes.Contains(raw, []byte("digest mismatch"))
	})
	if s, p := g.policyHealth(t); s != "degraded" || p["revision"] != "release-1" {
		t.Fatalf("after the tampered bundle: %s %v", s, p)
	}
	if r := search(); r.Status != 200 {
		t.Fatalf("the tampered bundle must not serve: %d %s", r.Status, r.Body)
	}

	// The genuine newer bundle: served.
	srv.set(build(edited, "release-3"), "3")
	waitFor(t, "release-3 to serve", func() bool {
		s, p := g.policyHealth(t)
		return s == "ok" && p["revision"] == "release-3"
	})
	if r := search(); r.Status != 401 && r.Status != 403 {
		t.Fatalf("release-3 disables the coding agent: %d %s", r.Status, r.Body)
	}
}

// spliceDataJSON returns signed with its data.json replaced by other's:
// a bundle whose signature no longer matches its data.
func spliceDataJSON(t *testing.T, signed, other []byte) []byte {
	t.Helper()
	replacement := tarFiles(t, other)["/data.json"]
	zr, err := gzip.NewReader(bytes.NewReader(signed))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		if hdr.Name == "/data.json" {
			data = replacement
		}
		hdr.Size = int64(len(data))
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write(data)
	}
	_ = tw.Close()
	_ = zw.Close()
	return out.Bytes()
}

// tarFiles reads a .tar.gz into name → contents.
func tarFiles(t *testing.T, tarball []byte) map[string][]byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(tarball))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return files
		} else if err != nil {
			t.Fatal(err)
		}
		files[hdr.Name], _ = io.ReadAll(tr)
	}
}
