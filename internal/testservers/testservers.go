// Package testservers starts real servers (Redis today, PostgreSQL next)
// for tests, from the binaries Debian installs: each test gets a private
// server on a free loopback port in its own temp dir, stopped when the test
// ends. A machine without the binary skips those tests with a message that
// names the package to install, unless WIKIGATE_REQUIRE_SERVERS=1 (CI),
// where a missing server fails the test instead of hiding it.
package testservers

import (
	"net"
	"os"
	"os/exec"
	"testing"
)

// RequireEnv is the variable that turns a missing server into a failure.
const RequireEnv = "WIKIGATE_REQUIRE_SERVERS"

// Binary returns the path of name, or skips (fails under RequireEnv=1) the
// test, naming the Debian package that installs it.
func Binary(t testing.TB, name, debianPackage string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	msg := name + " is not installed (Debian: apt-get install -y " + debianPackage + ")"
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s, and %s=1 requires it", msg, RequireEnv)
	}
	t.Skip(msg + "; skipping")
	return ""
}

// FreePort is a loopback TCP port nothing listens on right now.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
