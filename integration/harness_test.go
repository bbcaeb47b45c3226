package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/wikigate/wikigate/identity"

	_ "github.com/wikigate/wikigate/caddymodule"
	_ "github.com/wikigate/wikigate/devbackends/devcaddy"
)

const (
	jwtSecret   = "integration-test-secret-0123456789abcdef"
	meiliKey    = "integration-meili-master-key"
	ragflowKey  = "ragflow-integrationtestkey000000000000000000000"
	agentIssuer = "wikigate-dev"
	humanIssuer = "wikigate-dev-sso"
	audience    = "wikigate"
)

// gate is a running Caddy with the gate and the development backends.
type gate struct {
	t            *testing.T
	url          string // the gate
	meiliURL     string // development Meilisearch
	ragURL       string // development RAGFlow
	keysFile     string
	feedbackPath string
	policyDir    string
	config       string // the Caddyfile loaded
	client       *http.Client
}

// gateOptions vary the configuration per test.
type gateOptions struct {
	policyDir    string // default ../rego
	meiliURL     string // default: the development Meilisearch
	ragflowURL   string // default: the development RAGFlow
	extraOptions string // extra wikigate directive lines
	feedbackPath string // default: a fresh file per test
	meiliExtra   string // extra meilisearch block lines
	siteExtra    string // extra lines in the gate's site block
	globalExtra  string // extra global options (e.g. servers { timeouts {...} })
	ragflowExtra string // ragflow block lines; default "timeout 3s"
	humanJWT     string // human_jwt block lines; default: the HMAC issuer
	agentAud     string // agent_jwt audience values; default "wikigate"
	siteMapping  string // site_mapping file; default the sample wiki's
}

// startGate loads a configuration shaped like the repo's Caddyfile and stops
// Caddy when the test ends.
func startGate(t *testing.T, o gateOptions) *gate {
	t.Helper()
	g := &gate{t: t, keysFile: filepath.Join(t.TempDir(), "api_keys.json"), client: &http.Client{Timeout: 15 * time.Second}}
	g.feedbackPath = o.feedbackPath
	if g.feedbackPath == "" {
		g.feedbackPath = filepath.Join(t.TempDir(), "feedback.db")
	}
	gatePort, meiliPort, ragPort := freePort(t), freePort(t), freePort(t)
	g.url = fmt.Sprintf("http://127.0.0.1:%d", gatePort)
	g.meiliURL = fmt.Sprintf("http://127.0.0.1:%d", meiliPort)
	g.ragURL = fmt.Sprintf("http://127.0.0.1:%d", ragPort)
	g.policyDir = o.policyDir
	if g.policyDir == "" {
		g.policyDir, _ = filepath.Abs("../rego")
	}
	upstream := o.meiliURL
	if upstream == "" {
		upstream = g.meiliURL
	}
	ragUpstream := o.ragflowURL
	if ragUpstream == "" {
		ragUpstream = g.ragURL
	}
	ragflowExtra := o.ragflowExtra
	if ragflowExtra == "" {
		ragflowExtra = "timeout 3s"
	}
	humanJWT := o.humanJWT
	if humanJWT == "" {
		humanJWT = "issuer wikigate-dev-sso\n\t\t\taudience wikigate\n\t\t\thmac_secret " + jwtSecret
	}
	agentAud := o.agentAud
	if agentAud == "" {
		agentAud = audience
	}
	siteMapping := o.siteMapping
	if siteMapping == "" {
		siteMapping = filepath.Join("..", "samplewiki", "wiki-map.yaml")
	}
	cfg := fmt.Sprintf(caddyfileTemplate, o.globalExtra, gatePort, o.siteExtra, g.policyDir, siteMapping, g.keysFile, agentAud, jwtSecret, humanJWT,
		upstream, meiliKey, o.meiliExtra, ragUpstream, ragflowKey, ragflowExtra, g.feedbackPath, o.extraOptions, meiliPort, meiliKey, ragPort, ragflowKey)
	g.config = cfg
	loadCaddyfile(t, cfg)
	waitReady(t, g.url+"/healthz")
	return g
}

// reload loads the same configuration again, as `wikigate reload --force`
// does: Caddy provisions the new config before cleaning up the old one.
func (g *gate) reload() {
	g.t.Helper()
	cfgJSON, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(g.config), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		g.t.Fatal(err)
	}
	if err := caddy.Load(cfgJSON, true); err != nil {
		g.t.Fatalf("reloading: %v", err)
	}
	waitReady(g.t, g.url+"/healthz")
}

const caddyfileTemplate = `{
	admin off
	auto_https off
	grace_period 1ns
	log {
		output discard
	}
	%s
}
http://:%d {
	bind 127.0.0.1
	%s
	handle_errors {
		wikigate_error
	}
	wikigate {
		policy_dir %s
		site_mapping %s
		api_keys_file %s
		agent_jwt {
			issuer wikigate-dev
			audience %s
			algorithms HS256
			hmac_secret %s
		}
		human_jwt {
			%s
		}
		meilisearch {
			url %s
			api_key %s
			timeout 2s
			%s
		}
		ragflow {
			url %s
			api_key %s
			%s
		}
		feedback {
			path %s
		}
		%s
	}
}
` + devBackendSites

// devBackendSites are the development Meilisearch (port, master key) and
// RAGFlow (port, API key) on loopback, ending every test Caddyfile that
// serves them from the test process.
const devBackendSites = `http://:%d {
	bind 127.0.0.1
	wikigate_dev_meilisearch {
		master_key %s
	}
}
http://:%d {
	bind 127.0.0.1
	wikigate_dev_ragflow {
		api_key %s
	}
}
`

func loadCaddyfile(t *testing.T, cfg string) {
	t.Helper()
	adapter := caddyconfig.GetAdapter("caddyfile")
	cfgJSON, _, err := adapter.Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		t.Fatalf("adapting test Caddyfile: %v", err)
	}
	if err := caddy.Load(cfgJSON, true); err != nil {
		t.Fatalf("loading config: %v", err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
}

// handedOut holds every port freePort returned in this test process. A
// port is free when asked for and closed again at once, so the kernel may
// hand the same one out on the next ask; two sites of one config on one
// port fail to load ("ambiguous site definition"), as seen in CI.
var handedOut sync.Map

// freePort returns a loopback port nobody listens on now and that this
// test process has not handed out before.
func freePort(t *testing.T) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if _, taken := handedOut.LoadOrStore(port, true); !taken {
			return port
		}
	}
	t.Fatal("no loopback port left that this test process has not used")
	return 0
}

func waitReady(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never answered", url)
}

// agentToken mints a token the test configuration accepts.
func agentToken(t *testing.T, agent string) string {
	return mint(t, identity.MintOptions{Secret: []byte(jwtSecret), Issuer: agentIssuer, Audience: []string{audience}, Subject: agent, TTL: time.Hour})
}

func mint(t *testing.T, o identity.MintOptions) string {
	t.Helper()
	tok, err := identity.MintHS256(o)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// response is what a caller sees.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not JSON (%d): %s", r.Status, r.Body)
	}
	return m
}

// errorCode returns error.code of a protocol error body.
func (r response) errorCode(t *testing.T) string {
	t.Helper()
	e, ok := r.json(t)["error"].(map[string]any)
	if !ok {
		t.Fatalf("not an error envelope (%d): %s", r.Status, r.Body)
	}
	return e["code"].(string)
}

func (g *gate) post(path string, headers map[string]string, body string) response {
	g.t.Helper()
	req, err := http.NewRequest(http.MethodPost, g.url+path, strings.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return g.do(req)
}

func (g *gate) do(req *http.Request) response {
	g.t.Helper()
	resp, err := g.client.Do(req)
	if err != nil {
		g.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	g.checkResponse(req, resp.StatusCode, resp.Header, b) // openapi_validate_test.go
	return response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

func bearer(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }

// backendRequests counts the requests a development backend has logged.
func (g *gate) backendRequests(base, auth string) int {
	g.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/_dev/requests", nil)
	req.Header.Set("Authorization", "Bearer "+auth)
	r := g.do(req)
	if r.Status != 200 {
		g.t.Fatalf("request log: %d %s", r.Status, r.Body)
	}
	var log struct {
		Requests []json.RawMessage `json:"requests"`
	}
	if err := json.Unmarshal(r.Body, &log); err != nil {
		g.t.Fatal(err)
	}
	return len(log.Requests)
}

// copyDir copies the policy directory so a test can edit it, without the
// team's *_test.rego: the edits check what the gate does with a policy the
// team's tests would refuse (tested reloads: policy_lifecycle_test.go).
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), "_test.rego") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), bytes.Clone(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
