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
	if err := prepareDataDir([]string{"wikigate", "run"}); err != nil {
		t.Fatal(err)
	}
	defer dataDirLock.Close()
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("data dir after run: %v %v, want an owner-only directory", fi, err)
	}
}

func TestAddressPartsAndWholeAddressAgree(t *testing.T) {
	for _, name := range []string{"WIKIGATE_LISTEN", "WIKIGATE_LISTEN_HOST", "WIKIGATE_LISTEN_PORT", "WIKIGATE_MEILI_DEV", "WIKIGATE_MEILI_DEV_HOST", "WIKIGATE_MEILI_DEV_PORT", "WIKIGATE_MEILI_URL"} {
		t.Setenv(name, "")
		os.Unsetenv(name)
	}
	t.Setenv("WIKIGATE_LISTEN_PORT", "18710")
	t.Setenv("WIKIGATE_MEILI_DEV", "127.0.0.2:18711")
	applyEnvDefaults()
	for name, want := range map[string]string{
		"WIKIGATE_LISTEN": "127.0.0.1:18710", "WIKIGATE_LISTEN_HOST": "127.0.0.1",
		"WIKIGATE_MEILI_DEV_HOST": "127.0.0.2", "WIKIGATE_MEILI_DEV_PORT": "18711",
		"WIKIGATE_MEILI_URL": "http://127.0.0.2:18711",
	} {
		if got := os.Getenv(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}
