package integration

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The scale-out test runs each gate as its own process of the built
// binary, so that one of them can be killed with SIGKILL while the others
// serve: an in-process Caddy cannot die that way.

// gateBinary builds ./cmd/wikigate into the test's temp dir (Go's build
// cache makes this a link step when the tree has been built before).
func gateBinary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is not on PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "wikigate")
	cmd := exec.Command(goTool, "build", "-o", bin, "./cmd/wikigate")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/wikigate: %v\n%s", err, out)
	}
	return bin
}

// gateProc is one gate process: `wikigate run` on its own Caddyfile.
type gateProc struct {
	t      *testing.T
	name   string
	url    string
	log    *bytes.Buffer
	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

// startGateProc writes caddyfile to a temp dir and runs the binary on it;
// the process is killed when the test ends. Caddy's own state (autosave,
// certificates) goes to the temp dir, never the user's home.
func startGateProc(t *testing.T, bin, name string, port int, caddyfile string) *gateProc {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(path, []byte(caddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	p := &gateProc{t: t, name: name, url: fmt.Sprintf("http://127.0.0.1:%d", port), log: &bytes.Buffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, "run", "--config", path, "--adapter", "caddyfile")
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir)
	p.cmd.Stdout, p.cmd.Stderr = &lockedWriter{mu: &p.mu, w: p.log}, &lockedWriter{mu: &p.mu, w: p.log}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(p.kill)
	t.Cleanup(func() { // runs before kill: a failed test shows what each gate logged
		if t.Failed() {
			t.Logf("%s's log, its end:\n%s", name, p.logTail())
		}
	})
	p.waitHealthy()
	return p
}

// waitHealthy waits until /healthz answers, or fails with the log tail.
func (p *gateProc) waitHealthy() {
	p.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case <-p.exited:
			p.t.Fatalf("%s exited at start:\n%s", p.name, p.logTail())
		default:
		}
		if resp, err := http.Get(p.url + "/healthz"); err == nil {
			resp.Body.Close()
			return
		}
	}
	p.t.Fatalf("%s never answered /healthz:\n%s", p.name, p.logTail())
}

// kill sends SIGKILL (no shutdown, no flush) and waits for the exit.
func (p *gateProc) kill() {
	if p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		p.t.Errorf("%s did not exit after SIGKILL", p.name)
	}
}

func (p *gateProc) logTail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.log.Bytes()
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// lockedWriter lets the process's stdout and stderr share one buffer.
type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
