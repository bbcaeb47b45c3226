package policies_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/open-policy-agent/opa/v1/bundle"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
)

// esKeys returns a fresh ES256 key pair as PEM (private, public).
func esKeys(t *testing.T) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: priv})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}))
}

func buildBundle(t *testing.T, dir string, opts policies.BuildOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := policies.BuildBundle(t.Context(), dir, &buf, opts); err != nil {
		t.Fatalf("BuildBundle: %v", err)
	}
	return buf.Bytes()
}

// tamper rewrites one file of a bundle tarball, keeping its signature.
func tamper(t *testing.T, tarball []byte, name string, edit func(string) string) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(tarball))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	found := false
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		if strings.TrimPrefix(hdr.Name, "/") == name {
			data, found = []byte(edit(string(data))), true
		}
		hdr.Size = int64(len(data))
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	tw.Close()
	zw.Close()
	if !found {
		t.Fatalf("no %s in the bundle", name)
	}
	return out.Bytes()
}

// disableInJSON edits a data.json text to disable agent.
func disableInJSON(t *testing.T, agent string) func(string) string {
	return func(s string) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		disableAgent(agent)(m)
		out, _ := json.Marshal(m)
		return string(out)
	}
}

func TestBuildBundleReadsBackWithOPA(t *testing.T) {
	priv, pub := esKeys(t)
	raw := buildBundle(t, defaultPolicyDir, policies.BuildOptions{Revision: "r1", SigningKey: priv, SigningAlg: "ES256", KeyID: "team"})
	vc := bundle.NewVerificationConfig(map[string]*bundle.KeyConfig{"team": {Key: pub, Algorithm: "ES256"}}, "", "", nil)
	b, err := bundle.NewReader(bytes.NewReader(raw)).WithBundleVerificationConfig(vc).Read()
	if err != nil {
		t.Fatalf("OPA cannot read the bundle: %v", err)
	}
	if b.Manifest.Revision != "r1" || b.Data["agents"] == nil || len(b.Signatures.Signatures) != 1 {
		t.Fatalf("manifest %+v, data keys %d, signatures %d", b.Manifest, len(b.Data), len(b.Signatures.Signatures))
	}
	for _, m := range b.Modules {
		if strings.HasSuffix(m.Path, "_test.rego") {
			t.Errorf("the bundle holds a test: %s", m.Path)
		}
	}
	// Unsigned, the revision defaults to the directory's own.
	dirEngine := newEngine(t, defaultPolicyDir)
	file := filepath.Join(t.TempDir(), "bundle.tar.gz")
	writeFile(t, filepath.Dir(file), "bundle.tar.gz", string(buildBundle(t, defaultPolicyDir, policies.BuildOptions{})))
	engine, err := policies.New(t.Context(), policies.Options{Bundle: &policies.BundleOptions{Source: file}})
	if err != nil {
		t.Fatal(err)
	}
	if engine.Revision() != dirEngine.Revision() || !decideCodingSearch(t, engine).Allow {
		t.Fatalf("tarball revision %s, directory %s", engine.Revision(), dirEngine.Revision())
	}
}

func TestBundleFromADirectoryWithHS256(t *testing.T) {
	raw := buildBundle(t, defaultPolicyDir, policies.BuildOptions{Revision: "dir-1", SigningKey: "team-secret", SigningAlg: "HS256"})
	dir := t.TempDir()
	untar(t, raw, dir)
	opts := func(secret string) policies.Options {
		return policies.Options{Bundle: &policies.BundleOptions{Source: dir, KeyID: "k",
			Keys: map[string]policies.VerificationKey{"k": {Algorithm: "HS256", Key: secret}}}}
	}
	core, logs := observer.New(zap.InfoLevel)
	withLog := opts("team-secret")
	withLog.Logger = zap.New(core)
	engine, err := policies.New(t.Context(), withLog)
	if err != nil || engine.Revision() != "dir-1" {
		t.Fatalf("New = %v, revision %v", err, engine)
	}
	// A bundle carries no tests: its load must not claim they ran.
	if loaded := logs.FilterMessage("policy loaded").All(); len(loaded) != 1 || loaded[0].ContextMap()["tests_run"] != false {
		t.Fatalf("the bundle's load log: %+v", loaded)
	}
	if _, err := policies.New(t.Context(), opts("other-secret")); !errors.Is(err, policies.ErrBundleRefused) {
		t.Fatalf("a bundle signed with another secret: %v", err)
	}
}

func untar(t *testing.T, tarball []byte, dir string) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(tarball))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return
		} else if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		writeFile(t, dir, strings.TrimPrefix(hdr.Name, "/"), string(data))
	}
}

// bundleServer serves one bundle at a time with an ETag, answering 304 to
// a matching If-None-Match, and counts what it answered.
type bundleServer struct {
	mu     sync.Mutex
	body   []byte
	etag   string
	full   atomic.Int32
	unmod  atomic.Int32
	server *httptest.Server
}

func newBundleServer(t *testing.T) *bundleServer {
	s := &bundleServer{}
	s.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		body, etag := s.body, s.etag
		s.mu.Unlock()
		if r.Header.Get("If-None-Match") == etag {
			s.unmod.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		s.full.Add(1)
		w.Header().Set("ETag", etag)
		w.Write(body)
	}))
	t.Cleanup(s.server.Close)
	return s
}

func (s *bundleServer) serve(body []byte, etag string) {
	s.mu.Lock()
	s.body, s.etag = body, `"`+etag+`"`
	s.mu.Unlock()
}

func TestSignedBundleOverHTTP(t *testing.T) {
	priv, pub := esKeys(t)
	srv := newBundleServer(t)
	signed := func(dir, rev string) []byte {
		return buildBundle(t, dir, policies.BuildOptions{Revision: rev, SigningKey: priv, SigningAlg: "ES256", KeyID: "team"})
	}
	v1 := signed(defaultPolicyDir, "v1")
	srv.serve(v1, "e1")
	rec := &recorder{}
	engine, err := policies.New(t.Context(), policies.Options{Observer: rec, Bundle: &policies.BundleOptions{
		Source: srv.server.URL + "/bundles/wikigate.tar.gz",
		Keys:   map[string]policies.VerificationKey{"team": {Algorithm: "ES256", Key: pub}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if d := decideCodingSearch(t, engine); engine.Revision() != "v1" || !d.Allow || d.Revision != "v1" {
		t.Fatalf("revision %s, decision %+v", engine.Revision(), d)
	}

	// Unchanged: the gate asks with the ETag and the server answers 304.
	if err := engine.Reload(t.Context()); err != nil || srv.unmod.Load() != 1 {
		t.Fatalf("Reload = %v, 304s %d", err, srv.unmod.Load())
	}

	// Tampered: the coding agent disabled in data.json, the signature kept.
	srv.serve(tamper(t, v1, "data.json", disableInJSON(t, "kunora-coding-agent")), "e2")
	err = engine.Reload(t.Context())
	t.Logf("tampered: %v", err)
	if !errors.Is(err, policies.ErrBundleRefused) || !strings.Contains(err.Error(), "data.json") {
		t.Fatalf("a tampered bundle: %v", err)
	}
	if d := decideCodingSearch(t, engine); engine.Revision() != "v1" || !d.Allow {
		t.Fatalf("after the tampered bundle: revision %s, decision %+v", engine.Revision(), d)
	}
	// The same tampered bytes on the next poll: still refused, neither
	// logged nor counted again.
	if err := engine.Reload(t.Context()); !errors.Is(err, policies.ErrBundleRefused) || len(rec.outcomes) != 1 {
		t.Fatalf("the tampered bundle again: %v, outcomes %v", err, rec.outcomes)
	}

	// Unsigned: refused too, since a key is configured.
	srv.serve(buildBundle(t, defaultPolicyDir, policies.BuildOptions{Revision: "unsigned"}), "e3")
	if err := engine.Reload(t.Context()); !errors.Is(err, policies.ErrBundleRefused) || engine.Revision() != "v1" {
		t.Fatalf("an unsigned bundle: %v, revision %s", err, engine.Revision())
	}

	// Newer and signed: served.
	dir := copyPolicyDir(t)
	editData(t, dir, disableAgent("kunora-coding-agent"))
	srv.serve(signed(dir, "v2"), "e4")
	if err := engine.Reload(t.Context()); err != nil {
		t.Fatalf("the newer bundle: %v", err)
	}
	if d := decideCodingSearch(t, engine); engine.Revision() != "v2" || d.Allow || d.Code != protocol.CodeUnauthorized || d.Revision != "v2" {
		t.Fatalf("after v2: revision %s, decision %+v", engine.Revision(), d)
	}
	if err := engine.Reload(t.Context()); err != nil || srv.unmod.Load() != 2 {
		t.Fatalf("v2 again: %v, 304s %d", err, srv.unmod.Load())
	}
	want := []string{policies.ReloadRefused, policies.ReloadRefused, policies.ReloadActivated}
	if strings.Join(rec.outcomes, ",") != strings.Join(want, ",") {
		t.Errorf("outcomes %v, want %v", rec.outcomes, want)
	}
}

func TestBundleServerDownKeepsServing(t *testing.T) {
	srv := newBundleServer(t)
	srv.serve(buildBundle(t, defaultPolicyDir, policies.BuildOptions{Revision: "v1"}), "e1")
	engine, err := policies.New(t.Context(), policies.Options{Bundle: &policies.BundleOptions{Source: srv.server.URL}})
	if err != nil {
		t.Fatal(err)
	}
	srv.server.Close()
	var un *policies.UnavailableError
	if err := engine.Reload(t.Context()); !errors.As(err, &un) || engine.Revision() != "v1" {
		t.Fatalf("server down: %v, revision %s", err, engine.Revision())
	}
	if _, err := policies.New(t.Context(), policies.Options{Bundle: &policies.BundleOptions{Source: srv.server.URL}}); err == nil {
		t.Fatal("a gate must not start without its bundle")
	}
}
