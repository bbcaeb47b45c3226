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

// builtGate is ./cmd/wikigate built once for the test process: the tests
// only run it, and linking the whole gate is the slowest step of each of
// them. TestMain removes its directory.
var builtGate struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// gateBinary returns the built gate, building it on the first call (Go's
// build cache makes this a link step when the tree has been built before).
func gateBinary(t *testing.T) string {
	t.Helper()
	builtGate.once.Do(buildGate)
	if builtGate.err != nil {
		t.Fatal(builtGate.err)
	}
	return builtGate.path
}

func buildGate() {
	goTool, err := exec.LookPath("go")
	if err != nil {
		builtGate.err = fmt.Errorf("the go tool is not on PATH: %w", err)
		return
	}
	if builtGate.dir, err = os.MkdirTemp("", "wikigate-integration-"); err != nil {
		builtGate.err = err
		return
	}
	bin := filepath.Join(builtGate.dir, "wikigate")
	cmd := exec.Command(goTool, "build", "-o", bin, "./cmd/wikigate")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		builtGate.err = fmt.Errorf("go build ./cmd/wikigate: %w\n%s", err, out)
		return
	}
	builtGate.path = bin
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
