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
