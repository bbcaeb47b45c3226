package testservers

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startTimeout bounds how long a server may take to answer after start.
const startTimeout = 15 * time.Second

// Redis is a private redis-server for one test.
type Redis struct {
	t       testing.TB
	bin     string
	dir     string
	port    int
	persist bool
	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{}
}

// RedisOptions vary the server.
type RedisOptions struct {
	// Persist keeps an append-only file in the server's dir, fsynced on
	// every write, so Stop and Start find the data again. Off by default:
	// a test that does not restart the server needs no disk.
	Persist bool
}

// StartRedis starts redis-server on a free loopback port and stops it when
// the test ends. It skips (or fails, see RequireEnv) without the binary.
func StartRedis(t testing.TB, o RedisOptions) *Redis {
	t.Helper()
	r := &Redis{t: t, bin: Binary(t, "redis-server", "redis-server"), dir: t.TempDir(), port: FreePort(t), persist: o.Persist}
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// URL is the server's redis:// URL.
func (r *Redis) URL() string { return "redis://" + r.Addr() }

// Addr is host:port.
func (r *Redis) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(r.port)) }

// Start starts the server (again, after Stop) on the same port and dir,
// and waits until it answers PING.
func (r *Redis) Start() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd != nil {
		r.t.Fatal("redis-server is already running")
	}
	cmd := exec.Command(r.bin, r.args()...)
	cmd.Dir = r.dir
	log, err := os.OpenFile(filepath.Join(r.dir, "redis.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		r.t.Fatal(err)
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		r.t.Fatalf("starting redis-server: %v", err)
	}
	r.cmd, r.exited = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(r.exited)
	if err := r.waitReady(); err != nil {
		r.t.Fatalf("redis-server on %s: %v\n%s", r.Addr(), err, r.logTail())
	}
}

func (r *Redis) args() []string {
	args := []string{
		"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--dir", r.dir,
		"--daemonize", "no", "--save", "", "--protected-mode", "yes", "--logfile", "",
	}
	if r.persist {
		return append(args, "--appendonly", "yes", "--appendfsync", "always")
	}
	return append(args, "--appendonly", "no")
}

// Stop shuts the server down (SIGTERM: an append-only file is flushed)
// and waits for it; safe to call when it is not running.
func (r *Redis) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.exited:
	case <-time.After(startTimeout):
		_ = r.cmd.Process.Kill()
		<-r.exited
	}
	r.cmd = nil
}

// waitReady polls PING until +PONG, the process exits, or startTimeout.
func (r *Redis) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-r.exited:
			return fmt.Errorf("exited during start")
		default:
		}
		if ping(r.Addr()) == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("did not answer PING within %s", startTimeout)
}

func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

func (r *Redis) logTail() string {
	b, _ := os.ReadFile(filepath.Join(r.dir, "redis.log"))
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
