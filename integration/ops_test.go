package integration

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"

	"github.com/wikigate/wikigate/caddymodule"
)

// fakeMeiliHealth plays a Meilisearch whose /health runs health.
func fakeMeiliHealth(t *testing.T, health func(w http.ResponseWriter, r *http.Request)) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/health" {
			health(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"hits":[],"query":"","processingTimeMs":1,"limit":5,"offset":0,"estimatedTotalHits":0}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func available(w http.ResponseWriter, _ *http.Request) {
	_, _ = w.Write([]byte(`{"status":"available"}`))
}

// health GETs /healthz and decodes it.
func (g *gate) health() (int, map[string]any) {
	g.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, g.url+"/healthz", nil)
	r := g.do(req)
	return r.Status, r.json(g.t)
}

func reachable(rep map[string]any, group, name string) bool {
	b, _ := rep[group].(map[string]any)[name].(map[string]any)
	return b != nil && b["reachable"] == true
}

// waitProbeExpiry lets the probe results of start-up's /healthz expire.
func waitProbeExpiry() { time.Sleep(2100 * time.Millisecond) }

func TestHealthzHangUpDoesNotPoisonBackends(t *testing.T) {
	slowHealth := func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		available(w, r)
	}
	g := startGate(t, gateOptions{meiliURL: fakeMeiliHealth(t, slowHealth)})
	waitProbeExpiry()
	conn, err := net.Dial("tcp", strings.TrimPrefix(g.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: gate\r\n\r\n"))
	time.Sleep(50 * time.Millisecond) // the probe is under way
	_ = conn.(*net.TCPConn).SetLinger(0)
	_ = conn.Close() // reset

	status, rep := g.health()
	if status != 200 || rep["status"] != "ok" || !reachable(rep, "backends", "meilisearch") || !reachable(rep, "backends", "ragflow") {
		t.Fatalf("a caller's reset made backends unreachable for the next caller: %d %v", status, rep)
	}
}

func TestHealthzOneStalledBackendDoesNotMarkTheOtherDown(t *testing.T) {
	stalled := func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	}
	g := startGate(t, gateOptions{meiliURL: fakeMeiliHealth(t, stalled)})
	waitProbeExpiry()
	start := time.Now()
	status, rep := g.health()
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("/healthz took %v with one backend stalled", took)
	}
	if status != 200 || rep["status"] != "degraded" || reachable(rep, "backends", "meilisearch") {
		t.Errorf("want degraded with meilisearch down: %d %v", status, rep)
	}
	if !reachable(rep, "backends", "ragflow") {
		t.Errorf("the stalled Meilisearch marked RAGFlow down too: %v", rep)
	}
}

// jwksServer serves one EC public key, or 503 while down is set.
func jwksServer(t *testing.T, down bool) string {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	jwk, err := jwkset.NewJWKFromKey(&priv.PublicKey, jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: "k1"}})
	if err != nil {
		t.Fatal(err)
	}
	set, _ := json.Marshal(jwkset.JWKSMarshal{Keys: []jwkset.JWKMarshal{jwk.Marshal()}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if down {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(set)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/jwks.json"
}

func TestHealthzReportsJWKS(t *testing.T) {
	for _, down := range []bool{false, true} {
		t.Run(fmt.Sprintf("down=%v", down), func(t *testing.T) {
			g := startGate(t, gateOptions{humanJWT: "issuer https://sso.example\n\t\t\taudience wikigate\n\t\t\tjwks_url " + jwksServer(t, down)})
			_, rep := g.health()
			if reachable(rep, "jwks", "human") == down {
				t.Errorf("jwks human reachable = %v, want %v: %v", !down, !down, rep)
			}
			if want := map[bool]string{false: "ok", true: "degraded"}[down]; rep["status"] != want {
				t.Errorf("status %v, want %s: %v", rep["status"], want, rep)
			}
		})
	}
}

// headerRecorder records the X-Request-Id of every request it serves.
type headerRecorder struct {
	mu  sync.Mutex
	ids map[string]string // path → last X-Request-Id
}

func (h *headerRecorder) wrap(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.ids[r.URL.Path] = r.Header.Get("X-Request-Id")
		h.mu.Unlock()
		next(w, r)
	}
}

func (h *headerRecorder) id(path string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ids[path]
}

func TestBackendsReceiveTheGatesRequestID(t *testing.T) {
	rec := &headerRecorder{ids: map[string]string{}}
	retrieval := `{"code":0,"data":{"chunks":[` + chunkJSON("in", kgentMainApproved, kgentPath+"/memory.md", "kunora-kgent", "main", "approved", "Agent memory uses a window.") + `],"total":1}}`
	rag := httptest.NewServer(rec.wrap(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/api/v1/retrieval" {
			_, _ = w.Write([]byte(retrieval))
			return
		}
		_, _ = w.Write([]byte(`{"code":0,"message":"success","data":{"answer":"Memory uses a window [ID:0].","reference":{}}}`))
	}))
	t.Cleanup(rag.Close)
	meili := httptest.NewServer(rec.wrap(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"hits":[],"query":"","processingTimeMs":1,"limit":5,"offset":0,"estimatedTotalHits":0}`))
	}))
	t.Cleanup(meili.Close)
	g := startGate(t, gateOptions{ragflowURL: rag.URL, meiliURL: meili.URL, ragflowExtra: "stream off"})
	tok := bearer(agentToken(t, "kunora-coding-agent"))

	ask := g.post("/agent/tools/ask", tok, `{"question":"agent memory"}`)
	id := ask.Header.Get("X-Request-Id")
	if ask.Status != 200 || id == "" {
		t.Fatalf("ask: %d %s", ask.Status, ask.Body)
	}
	for _, path := range []string{"/api/v1/retrieval", "/api/v1/chat/completions"} {
		if got := rec.id(path); got != id {
			t.Errorf("RAGFlow %s got X-Request-Id %q, want the gate's %q", path, got, id)
		}
	}
	search := g.post("/agent/tools/search", tok, `{"question":"agent memory"}`)
	if got, want := rec.id("/indexes/wiki_pages/search"), search.Header.Get("X-Request-Id"); search.Status != 200 || got != want {
		t.Errorf("Meilisearch got X-Request-Id %q, want the gate's %q (%d %s)", got, want, search.Status, search.Body)
	}
}

// devSecretCaddyfile is a minimal gate whose agent verifier holds secret,
// logging warnings to logFile.
const devSecretCaddyfile = `{
	admin off
	auto_https off
	log {
		output file %s
		level WARN
	}
}
http://:%d {
	bind 127.0.0.1
	wikigate {
		policy_dir %s
		agent_jwt {
			issuer wikigate-dev
			audience wikigate
			hmac_secret %s
		}
		meilisearch {
			url http://127.0.0.1:%d
			api_key k
		}
	}
}
`

func TestDevSecretWarningOnlyWhenAVerifierHoldsIt(t *testing.T) {
	policyDir, _ := filepath.Abs("../rego")
	for _, tc := range []struct {
		name   string
		secret string
		warn   bool
	}{
		{"verifier holds the development secret", caddymodule.DevJWTSecret, true},
		{"verifier holds its own secret", jwtSecret, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("WIKIGATE_DEV_JWT_SECRET", "") // unset or empty: not what decides
			logFile := filepath.Join(t.TempDir(), "caddy.log")
			port := freePort(t)
			loadCaddyfile(t, fmt.Sprintf(devSecretCaddyfile, logFile, port, policyDir, tc.secret, freePort(t)))
			waitReady(t, fmt.Sprintf("http://127.0.0.1:%d/healthz", port))
			log, _ := os.ReadFile(logFile)
			if got := strings.Contains(string(log), "public development JWT secret"); got != tc.warn {
				t.Errorf("warning logged = %v, want %v; log:\n%s", got, tc.warn, log)
			}
		})
	}
}

// rawResponse is what a raw TCP client read back.
type rawResponse struct {
	status      int
	contentType string
	body        string
}

// rawExchange sends payload as is and reads one HTTP response.
func rawExchange(t *testing.T, addr, payload string) rawResponse {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	go func() { _, _ = conn.Write([]byte(payload)) }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the response to %.40q: %v", payload, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
	return rawResponse{resp.StatusCode, resp.Header.Get("Content-Type"), b.String()}
}

func (r rawResponse) errorCode() string {
	var env struct {
		Error struct {
			Code      string `json:"code"`
			RequestID string `json:"requestId"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(r.body), &env) != nil || env.Error.RequestID == "" {
		return ""
	}
	return env.Error.Code
}

// TestCaddyLayerErrors sends from a raw TCP client each malformed request
// that never reaches the gate, and checks what docs/operators.md says of it:
// errors Caddy raises go through handle_errors and get the protocol's
// envelope; errors Go's net/http writes itself stay plain text.
func TestCaddyLayerErrors(t *testing.T) {
	g := startGate(t, gateOptions{})
	addr := strings.TrimPrefix(g.url, "http://")
	post := "POST /agent/tools/search HTTP/1.1\r\n"
	cases := []struct {
		name    string
		payload string
		status  int
		code    string // "" = not the envelope (Go writes it)
	}{
		{"invalid Host (Caddy)", post + "Host: ...\r\nContent-Length: 0\r\n\r\n", 400, "invalid_request"},
		{"empty Host (Caddy)", post + "Host:\r\nContent-Length: 0\r\n\r\n", 400, "invalid_request"},
		{"method over 32 bytes (Caddy)", strings.Repeat("P", 33) + " /agent/tools/search HTTP/1.1\r\nHost: gate\r\n\r\n", 405, "method_not_allowed"},
		{"body over max_body_size (the gate)", post + "Host: gate\r\nAuthorization: Bearer " + agentToken(t, "kunora-coding-agent") + "\r\nContent-Length: 70000\r\n\r\n" + strings.Repeat("x", 70000), 413, "payload_too_large"},
		{"header over the limit (Go)", post + "Host: gate\r\nX-Big: " + strings.Repeat("a", 40000) + "\r\n\r\n", 431, ""},
		{"malformed request line (Go)", "NOT-AN-HTTP-REQUEST-LINE-AT-ALL\r\n\r\n", 400, ""},
		{"unsupported transfer coding (Go)", post + "Host: gate\r\nTransfer-Encoding: gzip\r\n\r\n", 501, ""},
		{"HTTP/2.0 on HTTP/1 (Go)", "POST /agent/tools/search HTTP/2.0\r\nHost: gate\r\n\r\n", 505, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := rawExchange(t, addr, tc.payload)
			if r.status != tc.status || r.errorCode() != tc.code {
				t.Errorf("got %d %q code %q, want %d code %q: %.200s", r.status, r.contentType, r.errorCode(), tc.status, tc.code, r.body)
			}
		})
	}
}
