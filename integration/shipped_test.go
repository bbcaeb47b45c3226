package integration

import (
	"context"
	"errors"
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

	"github.com/wikigate/wikigate/devbackends/devmeili"
)

// shipped is the repo's own Caddyfile, running in this process with the
// environment `./wikigate` would give it, on free ports and a fresh data
// directory.
type shipped struct {
	gate  string // host:port
	admin string // the admin socket's path
	meili string // the development Meilisearch's base URL
}

func startShipped(t *testing.T) shipped {
	t.Helper()
	data := t.TempDir()
	gatePort, meiliPort, ragPort := freePort(t), freePort(t), freePort(t)
	searchUID, searchKey := devmeili.SearchKeyFor(meiliKey) // the gate's search-only key
	env := map[string]string{
		"WIKIGATE_MEILI_SEARCH_KEY": searchKey, "WIKIGATE_MEILI_SEARCH_KEY_UID": searchUID,
		"WIKIGATE_LISTEN_HOST": "127.0.0.1", "WIKIGATE_LISTEN_PORT": fmt.Sprint(gatePort),
		"WIKIGATE_MEILI_DEV_HOST": "127.0.0.1", "WIKIGATE_MEILI_DEV_PORT": fmt.Sprint(meiliPort),
		"WIKIGATE_RAGFLOW_DEV_HOST": "127.0.0.1", "WIKIGATE_RAGFLOW_DEV_PORT": fmt.Sprint(ragPort),
		"WIKIGATE_MEILI_URL": fmt.Sprintf("http://127.0.0.1:%d", meiliPort), "WIKIGATE_RAGFLOW_URL": fmt.Sprintf("http://127.0.0.1:%d", ragPort),
		"WIKIGATE_MEILI_KEY": meiliKey, "WIKIGATE_MEILI_DEV_MASTER_KEY": meiliKey,
		"WIKIGATE_RAGFLOW_KEY": ragflowKey, "WIKIGATE_RAGFLOW_DEV_KEY": ragflowKey,
		"WIKIGATE_DEV_JWT_SECRET": jwtSecret, "WIKIGATE_DATA_DIR": data,
		"WIKIGATE_API_KEYS_FILE": filepath.Join(data, "api_keys.json"),
		"WIKIGATE_ADMIN":         "unix/" + filepath.Join(data, "admin.sock") + "|0600", // as ./wikigate sets it
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	cfg, err := os.ReadFile("../Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("..") // the Caddyfile's policy_dir is relative to the repo root
	loadCaddyfile(t, string(cfg))
	s := shipped{gate: fmt.Sprintf("127.0.0.1:%d", gatePort), admin: filepath.Join(data, "admin.sock"), meili: env["WIKIGATE_MEILI_URL"]}
	waitReady(t, "http://"+s.gate+"/healthz")
	return s
}

// adminClient talks to the admin API over its unix socket.
func (s shipped) adminClient() *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", s.admin)
		},
	}}
}

func (s shipped) adminGet(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := s.adminClient().Get("http://localhost" + path)
	if err != nil {
		t.Fatalf("admin %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestShippedCaddyfileAdminIsAnOwnerOnlySocket(t *testing.T) {
	s := startShipped(t)
	fi, err := os.Stat(s.admin)
	if err != nil {
		t.Fatalf("no admin socket: %v", err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("admin socket mode %v, want an owner-only (0600) socket", fi.Mode())
	}
	if status, body := s.adminGet(t, "/config/admin"); status != 200 || !strings.Contains(body, "unix/") {
		t.Errorf("admin over the socket: %d %s", status, body)
	}
	tok := agentToken(t, "kunora-coding-agent")
	req, _ := http.NewRequest(http.MethodPost, "http://"+s.gate+"/agent/tools/search", strings.NewReader(`{"question":"agent memory"}`))
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("search through the shipped Caddyfile: %v %v", resp, err)
	}
	resp.Body.Close()
	if status, body := s.adminGet(t, "/metrics"); status != 200 || !strings.Contains(body, `caddy_wikigate_calls_total{result="ok",tool="search"}`) {
		t.Errorf("metrics over the admin socket: %d, no search count", status)
	}
}

func TestShippedCaddyfileCutsSlowClients(t *testing.T) {
	s := startShipped(t)
	cases := map[string]string{
		"headers never finished": "POST /agent/tools/search HTTP/1.1\r\nHost: gate\r\n",
		"body never finished":    "POST /agent/tools/search HTTP/1.1\r\nHost: gate\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"quest",
	}
	var wg sync.WaitGroup
	for name, payload := range cases {
		wg.Go(func() {
			if err := heldFor(s.gate, payload, 25*time.Second); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		})
	}
	wg.Wait()
}

// heldFor sends payload and waits up to limit for the server to answer or
// close; it fails when the connection is still open after limit.
func heldFor(addr, payload string, limit time.Duration) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(payload)); err != nil {
		return err
	}
	_ = conn.SetReadDeadline(time.Now().Add(limit))
	_, err = io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("the server still held the connection after %v", limit)
	}
	return nil
}

func TestShippedCaddyfileCaddyErrorsAreEnvelopes(t *testing.T) {
	s := startShipped(t)
	r := rawExchange(t, s.gate, "POST /agent/tools/search HTTP/1.1\r\nHost: ...\r\nContent-Length: 0\r\n\r\n")
	if r.status != 400 || r.errorCode() != "invalid_request" {
		t.Errorf("invalid Host: got %d %q %s, want the envelope with invalid_request", r.status, r.contentType, r.body)
	}
}
