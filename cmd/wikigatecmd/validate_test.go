package wikigatecmd

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

func writeCaddyfile(t *testing.T, dir, text string) string {
	t.Helper()
	file := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// validate writes nothing: a configuration whose logs go to files is
// valid without the files being created (Caddy's own validate created
// them empty), and a log whose folder does not exist is reported, as run
// would fail on it.
func TestValidateWritesNothing(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "log")
	if err := os.Mkdir(logs, 0o700); err != nil {
		t.Fatal(err)
	}
	file := writeCaddyfile(t, dir, fmt.Sprintf(`{
	admin off
	log {
		output file %s/access.log
	}
}
http://127.0.0.1:1 {
	respond ok
}
`, logs))
	var out, errOut bytes.Buffer
	if rc := Validate([]string{"wikigate", "validate", "--config", file}, &out, &errOut); rc != 0 || !strings.Contains(out.String(), "Valid configuration") {
		t.Fatalf("validate: rc %d, %s %s", rc, out.String(), errOut.String())
	}
	if entries, _ := os.ReadDir(logs); len(entries) != 0 {
		t.Fatalf("validate created %v", entries)
	}
	missing := writeCaddyfile(t, dir, "{\n\tadmin off\n\tlog {\n\t\toutput file "+dir+"/nowhere/access.log\n\t}\n}\nhttp://127.0.0.1:1 {\n\trespond ok\n}\n")
	out.Reset()
	errOut.Reset()
	if rc := Validate([]string{"wikigate", "validate", "--config=" + missing}, &out, &errOut); rc == 0 || !strings.Contains(errOut.String(), "whose folder does not exist") {
		t.Fatalf("a log in a missing folder: rc %d, %s", rc, errOut.String())
	}
}

// reload refuses to move a running gate to another port (a shell with
// another WIKIGATE_LISTEN_PORT than the gate's), says which addresses,
// and goes ahead with a warning under --force; the same addresses pass.
func TestReloadRefusesToMoveTheGate(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	t.Setenv("XDG_DATA_HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", dir)
	file := writeCaddyfile(t, dir, "{\n\tadmin unix/"+dir+"/admin.sock\n}\nhttp://127.0.0.1:{$WIKIGATE_TEST_PORT} {\n\trespond ok\n}\n")
	t.Setenv("WIKIGATE_TEST_PORT", port)
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := caddyconfig.GetAdapter("caddyfile").Adapt(raw, map[string]any{"filename": file})
	if err != nil {
		t.Fatal(err)
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	args := []string{"wikigate", "reload", "--config", file}
	var warn bytes.Buffer
	if err := CheckReload(args, &warn); err != nil {
		t.Fatalf("same addresses: %v", err)
	}
	other := freePort(t)
	t.Setenv("WIKIGATE_TEST_PORT", other)
	err = CheckReload(args, &warn)
	if err == nil || !strings.Contains(err.Error(), "stop listening on site :"+port) || !strings.Contains(err.Error(), "listen on site :"+other) {
		t.Fatalf("a reload moving the gate: %v", err)
	}
	if err := CheckReload(append(args, "--force"), &warn); err != nil || !strings.Contains(warn.String(), "warning: this reload moves the gate") {
		t.Fatalf("--force: %v, warned %q", err, warn.String())
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}
