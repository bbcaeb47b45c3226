package ingest_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/wikigate/wikigate/devbackends/devmeili"
	"github.com/wikigate/wikigate/ingest"
)

// The end-to-end tests of both backends share these: the test site and
// the sample wiki as ingest reads them, the edit they make to a page, and
// a development Meilisearch to load into.

// readTree reads the docs tree src with the mapping file, failing the test
// on an error that stops the read (page failures are returned).
func readTree(t *testing.T, mapping, src string) (*ingest.Mapping, []ingest.Page, []ingest.Failure) {
	t.Helper()
	m, err := ingest.LoadMapping(mapping)
	if err != nil {
		t.Fatal(err)
	}
	pages, fails, err := ingest.ReadTree(src, m)
	if err != nil {
		t.Fatal(err)
	}
	return m, pages, fails
}

// readTestTree reads src (a copy of testdata/site) with the test mapping.
func readTestTree(t *testing.T, src string) (*ingest.Mapping, []ingest.Page, []ingest.Failure) {
	t.Helper()
	return readTree(t, filepath.Join("testdata", "mapping.yaml"), src)
}

// readSampleTree reads samplewiki/site with its mapping: the tree the
// development backends start with.
func readSampleTree(t *testing.T) (*ingest.Mapping, []ingest.Page, []ingest.Failure) {
	t.Helper()
	return readTree(t, filepath.Join("..", "samplewiki", "wiki-map.yaml"), filepath.Join("..", "samplewiki", "site"))
}

// editRunbook rewrites one page of the copied test site: its old words
// ("gateway error rate") go, new ones ("zeppelin desk") come.
func editRunbook(t *testing.T, src string) {
	t.Helper()
	page := filepath.Join(src, "docs", "operations", "runbook.md")
	if err := os.WriteFile(page, []byte("# On-call runbook\n\nEscalate to the zeppelin desk after ten minutes.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// devMeili starts a development Meilisearch holding the sample wiki, whose
// master key is testMasterKey.
func devMeili(t *testing.T) *httptest.Server {
	t.Helper()
	dev, err := devmeili.New(devmeili.Config{MasterKey: testMasterKey})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(dev)
	t.Cleanup(srv.Close)
	return srv
}

// send sends req with key as its bearer token, as the gate and ingest do.
func send(t *testing.T, req *http.Request, key string) *http.Response {
	t.Helper()
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
