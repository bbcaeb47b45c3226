package testservers

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// recorder is a testing.TB that records a skip or a failure instead of
// ending the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Skip(args ...any)          { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatalf(f string, a ...any) { r.failed = fmt.Sprintf(f, a...) }

// A missing server binary skips with the Debian package to install, and
// fails instead when WIKIGATE_REQUIRE_SERVERS=1.
func TestMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(RequireEnv, "")
	r := &recorder{TB: t}
	Binary(r, "redis-server", "redis-server")
	if !strings.Contains(r.skipped, "apt-get install -y redis-server") || r.failed != "" {
		t.Fatalf("skip %q, fail %q", r.skipped, r.failed)
	}
	t.Setenv(RequireEnv, "1")
	r = &recorder{TB: t}
	Binary(r, "redis-server", "redis-server")
	if !strings.Contains(r.failed, "redis-server") || !strings.Contains(r.failed, RequireEnv) {
		t.Fatalf("under %s=1: fail %q, skip %q", RequireEnv, r.failed, r.skipped)
	}
}

// A private PostgreSQL starts, accepts a connection on its loopback port,
// and starts again after Stop with its data.
func TestPostgresStartStop(t *testing.T) {
	pg := StartPostgres(t)
	psql := func() string {
		out, err := exec.Command("psql", "-X", "-A", "-t", pg.DSN(), "-c", "SELECT 41+1").CombinedOutput()
		if err != nil {
			return err.Error() + ": " + string(out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := psql(); got != "42" {
		t.Fatalf("psql: %q", got)
	}
	pg.Stop()
	if got := psql(); got == "42" {
		t.Fatal("answered while stopped")
	}
	pg.Start()
	if got := psql(); got != "42" {
		t.Fatalf("psql after restart: %q", got)
	}
}
