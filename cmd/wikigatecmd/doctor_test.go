package wikigatecmd

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/devbackends/devmeili"
	"github.com/wikigate/wikigate/devbackends/devragflow"
)

// `wikigate doctor` against a development Meilisearch whose index lost a
// filterable attribute fails (the process exits 1 on the returned error)
// and names the attribute.
func TestDoctorFailsNamingAMissingFilterableAttribute(t *testing.T) {
	const master, ragKey = "doctor-cmd-master", "ragflow-doctorcmd"
	ms, err := devmeili.New(devmeili.Config{MasterKey: master})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := devragflow.New(devragflow.Config{APIKey: ragKey})
	if err != nil {
		t.Fatal(err)
	}
	meili, rag := httptest.NewServer(ms), httptest.NewServer(rs)
	defer meili.Close()
	defer rag.Close()
	uid, key := devmeili.SearchKeyFor(master)
	dir := t.TempDir()
	caddyfile := filepath.Join(dir, "Caddyfile")
	cfg := fmt.Sprintf(`http://127.0.0.1:18799 {
	wikigate {
		policy_dir %s
		api_keys_file %s
		meilisearch {
			url %s
			api_key %s
			tenant_key %s %s
		}
		ragflow {
			url %s
			api_key {env.DOCTOR_TEST_RAGFLOW_KEY}
		}
	}
}
`, dir, filepath.Join(dir, "keys.json"), meili.URL, key, key, uid, rag.URL)
	if err := os.WriteFile(caddyfile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../doctor/testdata/data.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCTOR_TEST_RAGFLOW_KEY", ragKey)
	t.Setenv("WIKIGATE_MEILI_KEY", master)

	out, err := run(t, doctorCommand(), "--config", caddyfile, "--adapter", "caddyfile")
	if err != nil {
		t.Fatalf("doctor on complete development backends: %v\n%s", err, out)
	}
	req, _ := http.NewRequest(http.MethodPatch, meili.URL+"/indexes/wiki_pages/settings",
		strings.NewReader(`{"filterableAttributes":["id","project","version","status","path"]}`))
	req.Header.Set("Authorization", "Bearer "+master)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("settings update: %v %v", resp, err)
	}
	out, err = run(t, doctorCommand(), "--config", caddyfile, "--adapter", "caddyfile")
	if err == nil {
		t.Fatalf("doctor passed without pathPrefixes filterable:\n%s", out)
	}
	if !strings.Contains(out, `FAIL  meilisearch  index "wiki_pages": filterable attributes lack pathPrefixes`) {
		t.Errorf("doctor does not name the attribute:\n%s", out)
	}
}
