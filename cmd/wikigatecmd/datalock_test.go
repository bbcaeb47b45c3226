package wikigatecmd

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A second `wikigate run` on a data directory a running gate holds is
// refused before Caddy starts (before it could replace the first gate's
// admin socket), naming the holder's pid; once the first gate is gone the
// directory is free again.
func TestSecondRunOnTheSameDataDirIsRefused(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("WIKIGATE_DATA_DIR", dir)
	first, err := lockDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "admin.sock")
	if err := os.WriteFile(socket, []byte("the first gate's"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = prepareDataDir([]string{"wikigate", "run", "--config", "Caddyfile"})
	var inUse *DataDirInUseError
	if !errors.As(err, &inUse) || inUse.PID != strconv.Itoa(os.Getpid()) || !strings.Contains(err.Error(), "WIKIGATE_DATA_DIR") {
		t.Fatalf("second run: %v, want the data directory in use by pid %d", err, os.Getpid())
	}
	if raw, _ := os.ReadFile(socket); string(raw) != "the first gate's" {
		t.Fatal("the refused run touched the admin socket")
	}
	if err := prepareDataDir([]string{"wikigate", "start"}); err != nil {
		t.Fatalf("start (its child runs and locks): %v", err)
	}
	first.Close()
	second, err := lockDataDir(dir)
	if err != nil {
		t.Fatalf("after the first gate ended: %v", err)
	}
	second.Close()
}
