package testservers

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// postgresPackage is the Debian package with initdb and postgres.
const postgresPackage = "postgresql"

// Postgres is a private PostgreSQL server for one test: its own cluster
// in a temp dir, TCP on a free loopback port, unix sockets in the dir,
// trust authentication for the superuser "wikigate".
type Postgres struct {
	t      testing.TB
	bin    string // directory of initdb and postgres
	dir    string
	port   int
	cred   *syscall.Credential // set when running as root
	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

// StartPostgres creates a cluster, starts it and stops it (and removes the
// dir) when the test ends. It skips (or fails, see RequireEnv) without
// the binaries. As root it runs them as the "postgres" user the Debian
// package creates, because initdb and postgres refuse to run as root.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	p := &Postgres{t: t, bin: postgresBinDir(t), port: FreePort(t)}
	p.cred = dropRoot(t)
	p.dir = p.makeDir()
	p.initdb()
	p.Start()
	t.Cleanup(p.Stop)
	return p
}

// DSN is a connection string for the server's "postgres" database.
func (p *Postgres) DSN() string {
	return fmt.Sprintf("postgres://wikigate@%s/postgres?sslmode=disable", p.Addr())
}

// Addr is host:port.
func (p *Postgres) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)) }

// postgresBinDir finds initdb on PATH or in Debian's versioned directory.
func postgresBinDir(t testing.TB) string {
	if path, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			return filepath.Dir(real)
		}
		return filepath.Dir(path)
	}
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(m) > 0 {
		return filepath.Dir(m[len(m)-1])
	}
	return filepath.Dir(Binary(t, "initdb", postgresPackage))
}

// dropRoot returns the credential of the "postgres" user when the test
// runs as root (CI), nil otherwise.
func dropRoot(t testing.TB) *syscall.Credential {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("running as root, and initdb refuses root: need the postgres user the %s package creates: %v", postgresPackage, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// makeDir is a fresh dir the server's user owns; t.TempDir's parent is
// private to root, so it is made directly under the system temp dir.
func (p *Postgres) makeDir() string {
	dir, err := os.MkdirTemp("", "wikigate-pg-")
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if p.cred != nil {
		if err := os.Chown(dir, int(p.cred.Uid), int(p.cred.Gid)); err != nil {
			p.t.Fatal(err)
		}
	}
	return dir
}

func (p *Postgres) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(p.bin, name), args...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if p.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	}
	return cmd
}

func (p *Postgres) initdb() {
	out, err := p.command("initdb", "-D", p.dataDir(), "-U", "wikigate", "--auth=trust", "--no-sync", "-E", "UTF8").CombinedOutput()
	if err != nil {
		p.t.Fatalf("initdb: %v\n%s", err, out)
	}
}

func (p *Postgres) dataDir() string { return filepath.Join(p.dir, "data") }

// Start starts the server (again, after Stop) on the same port and data,
// and waits until it accepts connections.
func (p *Postgres) Start() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		p.t.Fatal("postgres is already running")
	}
	cmd := p.command("postgres", "-D", p.dataDir(), "-p", strconv.Itoa(p.port), "-h", "127.0.0.1",
		"-k", p.dir, "-c", "fsync=off", "-c", "max_connections=200", "-c", "logging_collector=off")
	log, err := os.OpenFile(filepath.Join(p.dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o666)
	if err != nil {
		p.t.Fatal(err)
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("starting postgres: %v", err)
	}
	p.cmd, p.exited = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(p.exited)
	if err := p.waitReady(); err != nil {
		p.t.Fatalf("postgres on %s: %v\n%s", p.Addr(), err, p.logTail())
	}
}

// Stop shuts the server down (SIGINT: fast shutdown, connections are cut)
// and waits for it; safe to call when it is not running.
func (p *Postgres) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.exited:
	case <-time.After(startTimeout):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	p.cmd = nil
}

// waitReady runs pg_isready until the server accepts connections, the
// process exits, or startTimeout.
func (p *Postgres) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return fmt.Errorf("exited during start")
		default:
		}
		if p.command("pg_isready", "-q", "-h", "127.0.0.1", "-p", strconv.Itoa(p.port)).Run() == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("not ready within %s", startTimeout)
}

func (p *Postgres) logTail() string {
	b, _ := os.ReadFile(filepath.Join(p.dir, "postgres.log"))
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
