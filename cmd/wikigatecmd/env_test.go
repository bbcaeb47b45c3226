package wikigatecmd

import (
	"os"
	"testing"
)

func TestAdminDefaultsToAnOwnerOnlySocketInTheDataDir(t *testing.T) {
	for _, tc := range []struct{ dataDir, want string }{
		{"", "unix/data/admin.sock|0600"},
		{"/var/lib/wikigate", "unix//var/lib/wikigate/admin.sock|0600"},
	} {
		t.Setenv("WIKIGATE_ADMIN", "")
		os.Unsetenv("WIKIGATE_ADMIN")
		t.Setenv("WIKIGATE_DATA_DIR", tc.dataDir)
		if tc.dataDir == "" {
			os.Unsetenv("WIKIGATE_DATA_DIR")
		}
		applyEnvDefaults()
		if got := os.Getenv("WIKIGATE_ADMIN"); got != tc.want {
			t.Errorf("data dir %q: WIKIGATE_ADMIN = %q, want %q", tc.dataDir, got, tc.want)
		}
	}
}

func TestDataDirIsCreatedOwnerOnlyWhenServing(t *testing.T) {
	dir := t.TempDir() + "/data"
	t.Setenv("WIKIGATE_DATA_DIR", dir)
	prepareDataDir([]string{"wikigate", "version"})
	if _, err := os.Stat(dir); err == nil {
		t.Fatalf("a command that does not serve created %s", dir)
	}
	prepareDataDir([]string{"wikigate", "run"})
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("data dir after run: %v %v, want an owner-only directory", fi, err)
	}
}
